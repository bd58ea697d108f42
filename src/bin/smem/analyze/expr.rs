//! Address expressions in `lane`: the index expression of a kernel, with the
//! lane in place of `threadIdx.x % 32`.
//!
//! A hand-written recursive-descent parser: the language is tiny, and its
//! error messages must point at the column where the text goes wrong, which a
//! parser written for it does best. This file depends only on `std`, so that
//! the fuzz targets (`fuzz/`) can include it with `#[path]`.
//!
//! The grammar, with C's precedence and associativity:
//!
//! ```text
//! expr    := logic ('?' expr ':' expr)?
//! logic   := binary operators, loosest first: || && | ^ & (== !=) (< <= > >=) (<< >>) (+ -) (* / %)
//! unary   := ('-' | '+' | '~' | '!') unary | primary
//! primary := INTEGER | NAME | 'sizeof' '(' TYPE ')' | '(' expr ')' | '-'
//! ```
//!
//! Integers are C's literals: decimal, `0x` hexadecimal, `0b` binary, `0`
//! octal (so `010` is 8, as in C), with any `u`/`l` suffix (`4u`, `1ull`).
//! They are evaluated in 64-bit signed arithmetic with overflow and division
//! by zero reported. The names are `lane` (0 to 31), `warpSize` (32) and the
//! constants of a [`Constants`] (`smem analyze --define k=3`). `sizeof` knows
//! C's and CUDA's arithmetic and vector types (`sizeof(float4)` is 16). With a
//! block shape ([`Constants::set_block`], `smem analyze --block`),
//! `threadIdx.x`, `threadIdx.y`, `threadIdx.z` are the lane's thread's index
//! in the block (thread `32 * warp + lane`, x fastest, as CUDA numbers them;
//! Programming Guide, "Thread Hierarchy") and `blockDim.x/.y/.z` the shape; a
//! lane past the block's last thread is inactive.
//!
//! A `-` where an operand is expected and none follows (before `)`, `:` or the
//! end) is the *inactive* value: the lane takes no part in the instruction, as
//! in `lane < 16 ? lane * 8 : -`. Any operation on an inactive value is
//! inactive; comparisons, `!` and `&&`/`||` give 0 or 1, and `&&`, `||` and
//! `?:` evaluate only the side they need.

use std::fmt;

/// A parsed expression, ready to be evaluated for each lane.
#[derive(Debug, Clone)]
pub struct Expr {
    root: Node,
}

/// Where in the source a token or an error is: byte offsets, which are also
/// column offsets since only ASCII is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    start: usize,
    end: usize,
}

/// A parse or evaluation error, located in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    /// What went wrong, one lowercase sentence.
    pub message: String,
    /// The text it is about.
    pub span: Span,
}

impl ExprError {
    /// The source on one line and a caret line under the offending text, each
    /// indented by two spaces, for printing under the message.
    pub fn show(&self, source: &str) -> String {
        let width = (self.span.end - self.span.start).max(1);
        format!(
            "  {source}\n  {}{}",
            " ".repeat(self.span.start),
            "^".repeat(width)
        )
    }
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

#[derive(Debug, Clone)]
enum Node {
    Number(i64),
    Lane,
    /// `threadIdx.x/y/z` (axis 0, 1, 2) of the lane's thread, in a block of
    /// the dims, of the warp.
    Thread(usize, [u32; 3], u32),
    Inactive,
    Negate(Box<Node>, Span),
    /// `~`.
    Complement(Box<Node>),
    /// `!`.
    Not(Box<Node>),
    Binary(BinOp, Box<Node>, Box<Node>, Span),
    Choose(Box<Node>, Box<Node>, Box<Node>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BinOp {
    Or,
    And,
    BitOr,
    BitXor,
    BitAnd,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl BinOp {
    /// C's precedence, loosest first.
    fn precedence(self) -> u8 {
        match self {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::BitOr => 3,
            BinOp::BitXor => 4,
            BinOp::BitAnd => 5,
            BinOp::Eq | BinOp::Ne => 6,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 7,
            BinOp::Shl | BinOp::Shr => 8,
            BinOp::Add | BinOp::Sub => 9,
            BinOp::Mul | BinOp::Div | BinOp::Rem => 10,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Number(i64),
    Name(String),
    Op(BinOp),
    Minus,
    Plus,
    Tilde,
    Bang,
    Open,
    Close,
    Question,
    Colon,
    End,
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            Token::Number(n) => return write!(f, "`{n}`"),
            Token::Name(name) => return write!(f, "`{name}`"),
            Token::Op(op) => match op {
                BinOp::Or => "||",
                BinOp::And => "&&",
                BinOp::BitOr => "|",
                BinOp::BitXor => "^",
                BinOp::BitAnd => "&",
                BinOp::Eq => "==",
                BinOp::Ne => "!=",
                BinOp::Lt => "<",
                BinOp::Le => "<=",
                BinOp::Gt => ">",
                BinOp::Ge => ">=",
                BinOp::Shl => "<<",
                BinOp::Shr => ">>",
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::Div => "/",
                BinOp::Rem => "%",
            },
            Token::Minus => "-",
            Token::Plus => "+",
            Token::Tilde => "~",
            Token::Bang => "!",
            Token::Open => "(",
            Token::Close => ")",
            Token::Question => "?",
            Token::Colon => ":",
            Token::End => return f.write_str("the end of the expression"),
        };
        write!(f, "`{text}`")
    }
}

/// Splits the source into tokens, each with its span; the last is `End`.
fn tokenize(source: &str) -> Result<Vec<(Token, Span)>, ExprError> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let two = bytes.get(i..i + 2).unwrap_or_default();
        let (token, len) = match (c, two) {
            (_, b"||") => (Token::Op(BinOp::Or), 2),
            (_, b"&&") => (Token::Op(BinOp::And), 2),
            (_, b"==") => (Token::Op(BinOp::Eq), 2),
            (_, b"!=") => (Token::Op(BinOp::Ne), 2),
            (_, b"<=") => (Token::Op(BinOp::Le), 2),
            (_, b">=") => (Token::Op(BinOp::Ge), 2),
            (_, b"<<") => (Token::Op(BinOp::Shl), 2),
            (_, b">>") => (Token::Op(BinOp::Shr), 2),
            (b'|', _) => (Token::Op(BinOp::BitOr), 1),
            (b'^', _) => (Token::Op(BinOp::BitXor), 1),
            (b'&', _) => (Token::Op(BinOp::BitAnd), 1),
            (b'<', _) => (Token::Op(BinOp::Lt), 1),
            (b'>', _) => (Token::Op(BinOp::Gt), 1),
            (b'+', _) => (Token::Plus, 1),
            (b'~', _) => (Token::Tilde, 1),
            (b'!', _) => (Token::Bang, 1),
            (b'-', _) => (Token::Minus, 1),
            (b'*', _) => (Token::Op(BinOp::Mul), 1),
            (b'/', _) => (Token::Op(BinOp::Div), 1),
            (b'%', _) => (Token::Op(BinOp::Rem), 1),
            (b'(', _) => (Token::Open, 1),
            (b')', _) => (Token::Close, 1),
            (b'?', _) => (Token::Question, 1),
            (b':', _) => (Token::Colon, 1),
            (b'0'..=b'9', _) => {
                let end = bytes[i..]
                    .iter()
                    .position(|b| !b.is_ascii_alphanumeric() && *b != b'_')
                    .map_or(bytes.len(), |n| i + n);
                let text = &source[i..end];
                let value = number(text).map_err(|message| ExprError {
                    message,
                    span: Span { start, end },
                })?;
                (Token::Number(value), end - i)
            }
            (b'a'..=b'z' | b'A'..=b'Z' | b'_', _) => {
                let mut end = bytes[i..]
                    .iter()
                    .position(|b| !b.is_ascii_alphanumeric() && *b != b'_')
                    .map_or(bytes.len(), |n| i + n);
                // CUDA's `threadIdx.x` and `blockDim.x` are one name here.
                if matches!(&source[i..end], "threadIdx" | "blockDim")
                    && bytes.get(end) == Some(&b'.')
                    && matches!(bytes.get(end + 1), Some(b'x' | b'y' | b'z'))
                    && !bytes
                        .get(end + 2)
                        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
                {
                    end += 2;
                }
                (Token::Name(source[i..end].to_owned()), end - i)
            }
            _ => {
                let ch = source[i..].chars().next().unwrap_or('?');
                return Err(ExprError {
                    message: format!("unexpected character `{ch}`"),
                    span: Span {
                        start,
                        end: start + 1,
                    },
                });
            }
        };
        i += len;
        tokens.push((token, Span { start, end: i }));
    }
    tokens.push((
        Token::End,
        Span {
            start: source.len(),
            end: source.len() + 1,
        },
    ));
    Ok(tokens)
}

/// The most tokens an expression may have (see [`parse`]).
const MAX_TOKENS: usize = 1000;

/// The parser's state: the tokens and the next one to read.
struct Parser<'c> {
    tokens: Vec<(Token, Span)>,
    next: usize,
    /// The names `--define` gave.
    constants: &'c Constants,
    /// `lane` is refused (the value of a constant is being parsed).
    constants_only: bool,
}

impl Parser<'_> {
    fn peek(&self) -> &(Token, Span) {
        // `End` is never consumed, so the index stays in bounds.
        &self.tokens[self.next.min(self.tokens.len() - 1)]
    }

    fn bump(&mut self) -> (Token, Span) {
        let token = self.peek().clone();
        if token.0 != Token::End {
            self.next += 1;
        }
        token
    }

    fn expr(&mut self) -> Result<Node, ExprError> {
        let condition = self.binary(1)?;
        if self.peek().0 != Token::Question {
            return Ok(condition);
        }
        let (_, question) = self.bump();
        let then = self.expr()?;
        let (token, span) = self.peek().clone();
        if token != Token::Colon {
            return Err(ExprError {
                message: format!(
                    "expected `:` for the `?` at column {}, found {token}",
                    question.start + 1
                ),
                span,
            });
        }
        self.bump();
        let otherwise = self.expr()?;
        Ok(Node::Choose(
            Box::new(condition),
            Box::new(then),
            Box::new(otherwise),
        ))
    }

    /// Binary operators of precedence `min` or tighter, left-associative.
    fn binary(&mut self, min: u8) -> Result<Node, ExprError> {
        let mut lhs = self.unary()?;
        loop {
            let op = match self.peek().0 {
                Token::Op(op) => op,
                Token::Minus => BinOp::Sub,
                Token::Plus => BinOp::Add,
                _ => break,
            };
            if op.precedence() < min {
                break;
            }
            let (_, span) = self.bump();
            let rhs = self.binary(op.precedence() + 1)?;
            lhs = Node::Binary(op, Box::new(lhs), Box::new(rhs), span);
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Node, ExprError> {
        let (token, span) = self.peek().clone();
        match token {
            Token::Minus => {
                self.bump();
                // A `-` with no operand after it is the inactive value.
                if matches!(self.peek().0, Token::End | Token::Close | Token::Colon) {
                    return Ok(Node::Inactive);
                }
                Ok(Node::Negate(Box::new(self.unary()?), span))
            }
            Token::Plus => {
                self.bump();
                self.unary()
            }
            Token::Tilde => {
                self.bump();
                Ok(Node::Complement(Box::new(self.unary()?)))
            }
            Token::Bang => {
                self.bump();
                Ok(Node::Not(Box::new(self.unary()?)))
            }
            _ => self.primary(),
        }
    }

    fn primary(&mut self) -> Result<Node, ExprError> {
        let (token, span) = self.bump();
        match token {
            Token::Number(n) => Ok(Node::Number(n)),
            Token::Name(name) if name == "lane" => {
                if self.constants_only {
                    return Err(ExprError {
                        message: "a constant cannot use `lane`".to_owned(),
                        span,
                    });
                }
                Ok(Node::Lane)
            }
            Token::Name(name) if name == "warpSize" => Ok(Node::Number(32)),
            Token::Name(name) if name.starts_with("threadIdx.") || name.starts_with("blockDim.") => {
                let axis = match name.as_bytes().last() {
                    Some(b'x') => 0,
                    Some(b'y') => 1,
                    _ => 2,
                };
                let Some((dims, warp)) = self.constants.block else {
                    return Err(ExprError {
                        message: format!(
                            "`{name}` needs the block's shape: give --block X, XxY or XxYxZ"
                        ),
                        span,
                    });
                };
                if name.starts_with("blockDim.") {
                    return Ok(Node::Number(i64::from(dims[axis])));
                }
                if self.constants_only {
                    return Err(ExprError {
                        message: format!("a constant cannot use `{name}`"),
                        span,
                    });
                }
                Ok(Node::Thread(axis, dims, warp))
            }
            Token::Name(name) if name == "sizeof" => self.size_of(span),
            Token::Name(name) => match self.constants.get(&name) {
                Some(value) => Ok(Node::Number(value)),
                None => Err(ExprError {
                    message: format!(
                        "unknown name `{name}`: the names are `lane`, `warpSize`, `threadIdx.x/y/z`, \
                         `blockDim.x/y/z` (with --block){}",
                        self.constants.listed()
                    ),
                    span,
                }),
            },
            Token::Open => {
                let inner = self.expr()?;
                let (close, close_span) = self.bump();
                if close != Token::Close {
                    return Err(ExprError {
                        message: format!(
                            "expected `)` to close the `(` at column {}, found {close}",
                            span.start + 1
                        ),
                        span: close_span,
                    });
                }
                Ok(inner)
            }
            other => Err(ExprError {
                message: format!("expected a number, a name, `(` or `-`, found {other}"),
                span,
            }),
        }
    }

    /// `sizeof(TYPE)`, after the `sizeof`.
    fn size_of(&mut self, keyword: Span) -> Result<Node, ExprError> {
        let (open, open_span) = self.bump();
        if open != Token::Open {
            return Err(ExprError {
                message: format!("expected `(` after `sizeof`, found {open}"),
                span: open_span,
            });
        }
        let mut words = Vec::new();
        let mut end = open_span;
        loop {
            let (token, span) = self.bump();
            match token {
                Token::Name(word) => {
                    words.push(word);
                    end = span;
                }
                Token::Close if !words.is_empty() => break,
                other => {
                    return Err(ExprError {
                        message: format!("expected a type name in `sizeof`, found {other}"),
                        span,
                    })
                }
            }
        }
        let name = words.join(" ");
        type_size(&name).map(Node::Number).ok_or_else(|| ExprError {
            message: format!(
                "unknown type `{name}` in `sizeof`: expected a C or CUDA arithmetic or vector \
                 type (char, short, int, long, long long, float, double, half, float4, int2, ...)"
            ),
            span: Span {
                start: keyword.start,
                end: end.end + 1,
            },
        })
    }
}

/// The value of a C integer literal: decimal, `0x` hexadecimal, `0b` binary or
/// `0` octal, with an optional `u`/`l` suffix.
fn number(text: &str) -> Result<i64, String> {
    let lower = text.to_ascii_lowercase();
    let digits = lower.trim_end_matches(['u', 'l']);
    let suffix = &lower[digits.len()..];
    let valid_suffix = matches!(suffix, "" | "u" | "l" | "ul" | "lu" | "ll" | "ull" | "llu");
    let (radix, body) = if let Some(hex) = digits.strip_prefix("0x") {
        (16, hex)
    } else if let Some(binary) = digits.strip_prefix("0b") {
        (2, binary)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if !valid_suffix || body.is_empty() || body.starts_with(['+', '-']) {
        return Err(format!("`{text}` is not a number"));
    }
    i64::from_str_radix(body, radix).map_err(|err| match err.kind() {
        std::num::IntErrorKind::PosOverflow => format!("number `{text}` is too large"),
        _ => format!("`{text}` is not a number"),
    })
}

/// `sizeof` of a C or CUDA type named by its words (`unsigned int`, `float4`),
/// on a 64-bit (LP64) host as CUDA compiles for.
pub fn type_size(name: &str) -> Option<i64> {
    let words: Vec<&str> = name
        .split(' ')
        .filter(|w| !matches!(*w, "const" | "volatile" | "signed" | "unsigned"))
        .collect();
    let scalar = |base: &str| -> Option<i64> {
        Some(match base {
            "char" | "uchar" | "schar" | "bool" | "int8_t" | "uint8_t" => 1,
            "short" | "ushort" | "half" | "__half" | "__nv_bfloat16" | "int16_t" | "uint16_t" => 2,
            "int" | "uint" | "float" | "int32_t" | "uint32_t" | "__half2" | "__nv_bfloat162" => 4,
            "long" | "ulong" | "longlong" | "ulonglong" | "double" | "size_t" | "int64_t"
            | "uint64_t" => 8,
            _ => return None,
        })
    };
    match words.as_slice() {
        // `unsigned` or `signed` alone is an int.
        [] if name.ends_with("signed") => Some(4),
        ["long", "long"] | ["long", "long", "int"] | ["long", "int"] => Some(8),
        ["short", "int"] => Some(2),
        [one] => scalar(one).or_else(|| {
            // CUDA's vector types: float4, int2, uchar3, longlong2, double4, ...
            let base = one.trim_end_matches(['1', '2', '3', '4']);
            let count: i64 = one[base.len()..].parse().ok()?;
            if !(1..=4).contains(&count) || matches!(base, "bool" | "half" | "size_t") {
                return None;
            }
            Some(scalar(base)? * count)
        }),
        _ => None,
    }
}

/// Named constants for expressions, as `smem analyze --define NAME=VALUE` gives them.
#[derive(Debug, Clone, Default)]
pub struct Constants {
    values: Vec<(String, i64)>,
    /// The block's shape and the warp, for `threadIdx` and `blockDim`.
    block: Option<([u32; 3], u32)>,
}

impl Constants {
    /// No constants.
    pub fn new() -> Constants {
        Constants::default()
    }

    /// Gives `threadIdx` and `blockDim` their meaning: a block of `dims`
    /// threads (x fastest), the lanes being those of warp `warp`.
    pub fn set_block(&mut self, dims: [u32; 3], warp: u32) {
        self.block = Some((dims, warp));
    }

    /// The value of `name`, if defined.
    pub fn get(&self, name: &str) -> Option<i64> {
        self.values
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|&(_, v)| v)
    }

    /// Adds `NAME=VALUE`, where VALUE is a constant expression that may use the
    /// constants defined before it (and `warpSize`, `sizeof`), but not `lane`.
    ///
    /// # Errors
    ///
    /// An [`ExprError`] located in `definition` when it has no `=`, the name is
    /// not an identifier or is `lane`, `warpSize` or `sizeof`, or the value
    /// does not parse or evaluate.
    pub fn define(&mut self, definition: &str) -> Result<(), ExprError> {
        let whole = Span {
            start: 0,
            end: definition.len(),
        };
        let Some((name, value)) = definition.split_once('=') else {
            return Err(ExprError {
                message: "expected NAME=VALUE".to_owned(),
                span: whole,
            });
        };
        let trimmed = name.trim();
        let start = name.len() - name.trim_start().len();
        let name_span = Span {
            start,
            end: start + trimmed.len(),
        };
        let identifier = trimmed
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && trimmed
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !identifier {
            return Err(ExprError {
                message: format!("`{trimmed}` is not a name: expected letters, digits and `_`, not starting with a digit"),
                span: name_span,
            });
        }
        if matches!(trimmed, "lane" | "warpSize" | "sizeof") {
            return Err(ExprError {
                message: format!("`{trimmed}` is built in and cannot be defined"),
                span: name_span,
            });
        }
        let offset = name.len() + 1;
        let shift = |err: ExprError| ExprError {
            message: err.message,
            span: Span {
                start: err.span.start + offset,
                end: err.span.end + offset,
            },
        };
        let expr = parse_tokens(value, self, true).map_err(shift)?;
        // No lane: "division by zero for lane 0" would be misleading.
        let number = expr
            .eval(0)
            .map_err(|err| {
                shift(ExprError {
                    message: err.message.replace(" for lane 0", ""),
                    span: err.span,
                })
            })?
            .ok_or_else(|| ExprError {
                message: format!("`{trimmed}` has no value: `-` marks an inactive lane"),
                span: Span {
                    start: offset,
                    end: definition.len(),
                },
            })?;
        self.values.push((trimmed.to_owned(), number));
        Ok(())
    }

    /// `, and k, base (given with --define)` for error messages.
    fn listed(&self) -> String {
        if self.values.is_empty() {
            return ", and those given with --define NAME=VALUE".to_owned();
        }
        let mut names: Vec<&str> = Vec::new();
        for (name, _) in &self.values {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        format!(", and {} (given with --define)", names.join(", "))
    }
}

/// Parses `source`, with no constants but the built-in ones.
///
/// # Errors
///
/// An [`ExprError`] locating the first token that does not fit the grammar,
/// an unknown name, a malformed or too large number, or a stray character.
// The binary parses with constants; the fuzz targets and the tests call this.
#[allow(dead_code)]
pub fn parse(source: &str) -> Result<Expr, ExprError> {
    parse_with(source, &Constants::new())
}

/// Parses `source`, where `constants` may be used.
///
/// # Errors
///
/// As [`parse`].
pub fn parse_with(source: &str, constants: &Constants) -> Result<Expr, ExprError> {
    parse_tokens(source, constants, false)
}

fn parse_tokens(
    source: &str,
    constants: &Constants,
    constants_only: bool,
) -> Result<Expr, ExprError> {
    let tokens = tokenize(source)?;
    // Parsing, evaluating and dropping the tree all recurse as deep as it is,
    // and its depth is at most its number of tokens: bounding those keeps a
    // pathological argument (60,000 nested parentheses) from overflowing the
    // stack. No address expression comes near the limit.
    if tokens.len() > MAX_TOKENS + 1 {
        return Err(ExprError {
            message: format!(
                "the expression has {} tokens: at most {MAX_TOKENS} are allowed",
                tokens.len() - 1
            ),
            span: tokens[MAX_TOKENS].1,
        });
    }
    let mut parser = Parser {
        tokens,
        next: 0,
        constants,
        constants_only,
    };
    let root = parser.expr()?;
    let (token, span) = parser.peek().clone();
    if token != Token::End {
        let message = if token == Token::Close {
            "unmatched `)`".to_owned()
        } else if matches!(token, Token::Number(_) | Token::Name(_) | Token::Open) {
            format!("expected an operator, found {token}")
        } else {
            format!("unexpected {token} after a complete expression")
        };
        return Err(ExprError { message, span });
    }
    Ok(Expr { root })
}

impl Expr {
    /// The value for `lane`, or `None` when the lane is inactive.
    ///
    /// # Errors
    ///
    /// An [`ExprError`] at the operator for a division or remainder by zero, an
    /// overflow, or a shift by a negative amount or by 64 or more.
    pub fn eval(&self, lane: u32) -> Result<Option<i64>, ExprError> {
        eval(&self.root, i64::from(lane))
    }
}

fn eval(node: &Node, lane: i64) -> Result<Option<i64>, ExprError> {
    let overflow = |span: Span| ExprError {
        message: format!("arithmetic overflow for lane {lane}"),
        span,
    };
    Ok(match node {
        Node::Number(n) => Some(*n),
        Node::Lane => Some(lane),
        Node::Thread(axis, [x, y, z], warp) => {
            let thread = i64::from(*warp) * 32 + lane;
            let (x, y, z) = (i64::from(*x), i64::from(*y), i64::from(*z));
            if thread >= x * y * z {
                // Past the block's last thread: the lane has no thread.
                None
            } else {
                Some(match axis {
                    0 => thread % x,
                    1 => thread / x % y,
                    _ => thread / (x * y),
                })
            }
        }
        Node::Inactive => None,
        Node::Negate(inner, span) => match eval(inner, lane)? {
            Some(v) => Some(v.checked_neg().ok_or_else(|| overflow(*span))?),
            None => None,
        },
        Node::Complement(inner) => eval(inner, lane)?.map(|v| !v),
        Node::Not(inner) => eval(inner, lane)?.map(|v| i64::from(v == 0)),
        Node::Choose(condition, then, otherwise) => match eval(condition, lane)? {
            Some(0) => eval(otherwise, lane)?,
            Some(_) => eval(then, lane)?,
            None => None,
        },
        Node::Binary(op @ (BinOp::And | BinOp::Or), lhs, rhs, _) => {
            let Some(left) = eval(lhs, lane)? else {
                return Ok(None);
            };
            // Short-circuit as C does: the right side may be undefined.
            match (op, left != 0) {
                (BinOp::And, false) => Some(0),
                (BinOp::Or, true) => Some(1),
                _ => eval(rhs, lane)?.map(|right| i64::from(right != 0)),
            }
        }
        Node::Binary(op, lhs, rhs, span) => {
            let (Some(a), Some(b)) = (eval(lhs, lane)?, eval(rhs, lane)?) else {
                return Ok(None);
            };
            let by_zero = |what: &str| ExprError {
                message: format!("{what} by zero for lane {lane}"),
                span: *span,
            };
            let shift = |b: i64| {
                u32::try_from(b).ok().filter(|&s| s < 64).ok_or(ExprError {
                    message: format!("shift by {b} for lane {lane}: expected 0 to 63"),
                    span: *span,
                })
            };
            let value = match op {
                BinOp::Add => a.checked_add(b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mul => a.checked_mul(b),
                BinOp::Div if b == 0 => return Err(by_zero("division")),
                BinOp::Div => a.checked_div(b),
                BinOp::Rem if b == 0 => return Err(by_zero("remainder")),
                BinOp::Rem => a.checked_rem(b),
                BinOp::Shl => {
                    let s = shift(b)?;
                    Some(a << s).filter(|v| v >> s == a)
                }
                BinOp::Shr => Some(a >> shift(b)?),
                BinOp::BitAnd => Some(a & b),
                BinOp::BitOr => Some(a | b),
                BinOp::BitXor => Some(a ^ b),
                BinOp::Eq => Some(i64::from(a == b)),
                BinOp::Ne => Some(i64::from(a != b)),
                BinOp::Lt => Some(i64::from(a < b)),
                BinOp::Le => Some(i64::from(a <= b)),
                BinOp::Gt => Some(i64::from(a > b)),
                BinOp::Ge => Some(i64::from(a >= b)),
                BinOp::And | BinOp::Or => unreachable!("handled above"),
            };
            Some(value.ok_or_else(|| overflow(*span))?)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(source: &str) -> Vec<Option<i64>> {
        let expr = parse(source).unwrap();
        (0..32).map(|lane| expr.eval(lane).unwrap()).collect()
    }

    fn parse_error(source: &str) -> String {
        let err = parse(source).unwrap_err();
        format!("{err}\n{}", err.show(source))
    }

    #[test]
    fn the_documented_examples() {
        assert_eq!(values("lane*33*4")[2], Some(264));
        assert_eq!(values("(lane%8)*16")[9], Some(16));
        assert_eq!(values("4*((3*lane)%32)")[11], Some(4));
        let half = values("lane<16 ? lane*8 : -");
        assert_eq!((half[15], half[16]), (Some(120), None));
    }

    #[test]
    fn precedence_and_associativity_are_cs() {
        assert_eq!(values("2+3*4")[0], Some(14));
        assert_eq!(values("20-5-3")[0], Some(12));
        assert_eq!(values("1<<2+1")[0], Some(8));
        assert_eq!(values("((lane%8) ^ (lane/8)) * 16")[9], Some(0));
        assert_eq!(values("lane & 1 == 1")[1], Some(1));
        assert_eq!(values("-lane*4")[2], Some(-8));
        assert_eq!(values("0x10 + 0X1")[0], Some(17));
        assert_eq!(values("lane > 3 ? lane < 5 ? 1 : 2 : 3")[4], Some(1));
        assert_eq!(values("lane == 0 || 8 / lane > 1")[0], Some(1));
    }

    #[test]
    fn inactive_propagates() {
        assert_eq!(values("-")[0], None);
        assert_eq!(values("(-) + 4")[0], None);
        assert_eq!(values("lane ? 4 : -")[0], None);
    }

    #[test]
    fn parse_errors_point_at_the_token() {
        assert_eq!(
            parse_error("lane*)"),
            "expected a number, a name, `(` or `-`, found `)`\n  lane*)\n       ^"
        );
        assert_eq!(
            parse_error("lane**4"),
            "expected a number, a name, `(` or `-`, found `*`\n  lane**4\n       ^"
        );
        assert_eq!(
            parse_error("tid*4"),
            "unknown name `tid`: the names are `lane`, `warpSize`, `threadIdx.x/y/z`, `blockDim.x/y/z` (with --block), and those given with --define NAME=VALUE\n  tid*4\n  ^^^"
        );
        assert_eq!(
            parse_error("(lane%8*16"),
            "expected `)` to close the `(` at column 1, found the end of the expression\n  (lane%8*16\n            ^"
        );
        assert_eq!(
            parse_error("lane 4"),
            "expected an operator, found `4`\n  lane 4\n       ^"
        );
        assert_eq!(parse_error("lane)"), "unmatched `)`\n  lane)\n      ^");
        assert_eq!(
            parse_error("lane$4"),
            "unexpected character `$`\n  lane$4\n      ^"
        );
        assert_eq!(
            parse_error("lane<16 ? 4"),
            "expected `:` for the `?` at column 9, found the end of the expression\n  lane<16 ? 4\n             ^"
        );
        assert_eq!(
            parse_error("99999999999999999999"),
            "number `99999999999999999999` is too large\n  99999999999999999999\n  ^^^^^^^^^^^^^^^^^^^^"
        );
        assert_eq!(
            parse_error("12ab"),
            "`12ab` is not a number\n  12ab\n  ^^^^"
        );
    }

    #[test]
    fn pathologically_long_expressions_are_refused_not_a_stack_overflow() {
        let nested = format!("{}lane{}", "(".repeat(60_000), ")".repeat(60_000));
        assert_eq!(
            parse_error(&nested).lines().next().unwrap(),
            "the expression has 120001 tokens: at most 1000 are allowed"
        );
        let chain = vec!["1"; 50_000].join("+");
        assert!(parse(&chain).is_err());
        // Just under the limit parses and evaluates.
        let long = format!("{}lane", "lane+".repeat(499));
        assert_eq!(parse(&long).unwrap().eval(2).unwrap(), Some(1000));
    }

    #[test]
    fn evaluation_errors_point_at_the_operator() {
        let expr = parse("64 / lane").unwrap();
        let err = expr.eval(0).unwrap_err();
        assert_eq!(err.to_string(), "division by zero for lane 0");
        assert_eq!(err.show("64 / lane"), "  64 / lane\n     ^");
        let err = parse("lane << 64").unwrap().eval(1).unwrap_err();
        assert_eq!(err.to_string(), "shift by 64 for lane 1: expected 0 to 63");
        let err = parse("lane * 0x7fffffffffffffff")
            .unwrap()
            .eval(2)
            .unwrap_err();
        assert_eq!(err.to_string(), "arithmetic overflow for lane 2");
    }

    #[test]
    fn c_literals_unary_operators_and_sizeof() {
        assert_eq!(values("0x100 + 4")[0], Some(0x104));
        assert_eq!(values("4 * 8")[7], Some(32));
        assert_eq!(values("010")[0], Some(8));
        assert_eq!(values("0b101")[0], Some(5));
        assert_eq!(values("4u * 2UL + 1ull")[0], Some(9));
        assert_eq!(values("0")[0], Some(0));
        assert_eq!(values("~0")[0], Some(-1));
        assert_eq!(values("!lane")[0..2], [Some(1), Some(0)]);
        assert_eq!(values("+lane")[3], Some(3));
        assert_eq!(values("-lane")[3], Some(-3));
        assert_eq!(values("lane * warpSize")[2], Some(64));
        assert_eq!(values("lane * sizeof(float4)")[2], Some(32));
        assert_eq!(
            values("sizeof(unsigned long long) + sizeof(char)")[0],
            Some(9)
        );
        assert_eq!(values("sizeof(double2) + sizeof(uchar3)")[0], Some(19));
        assert_eq!(values("sizeof(unsigned)")[0], Some(4));
        assert_eq!(values("lane & ~3")[7], Some(4));
    }

    #[test]
    fn bad_literals_and_types_are_errors() {
        assert_eq!(parse_error("08"), "`08` is not a number\n  08\n  ^^");
        assert_eq!(parse_error("4uu"), "`4uu` is not a number\n  4uu\n  ^^^");
        assert_eq!(parse_error("0x"), "`0x` is not a number\n  0x\n  ^^");
        assert_eq!(
            parse_error("sizeof(banana)"),
            "unknown type `banana` in `sizeof`: expected a C or CUDA arithmetic or vector type \
             (char, short, int, long, long long, float, double, half, float4, int2, ...)\n  \
             sizeof(banana)\n  ^^^^^^^^^^^^^^"
        );
        assert_eq!(
            parse_error("sizeof lane"),
            "expected `(` after `sizeof`, found `lane`\n  sizeof lane\n         ^^^^"
        );
    }

    #[test]
    fn constants_from_define() {
        let mut constants = Constants::new();
        constants.define("k=3").unwrap();
        constants.define(" base = 0x400 + k*128 ").unwrap();
        let expr = parse_with("base + lane*4*k", &constants).unwrap();
        assert_eq!(expr.eval(2).unwrap(), Some(0x400 + 3 * 128 + 24));
        // A later definition wins.
        constants.define("k=5").unwrap();
        assert_eq!(constants.get("k"), Some(5));
        let error = |definition: &str| {
            let err = Constants::new().define(definition).unwrap_err();
            format!("{err}\n{}", err.show(definition))
        };
        assert_eq!(error("k"), "expected NAME=VALUE\n  k\n  ^");
        assert_eq!(
            error("k=lane"),
            "a constant cannot use `lane`\n  k=lane\n    ^^^^"
        );
        assert_eq!(
            error("lane=3"),
            "`lane` is built in and cannot be defined\n  lane=3\n  ^^^^"
        );
        assert_eq!(
            error("3k=3"),
            "`3k` is not a name: expected letters, digits and `_`, not starting with a digit\n  3k=3\n  ^^"
        );
        assert_eq!(error("k=4/0"), "division by zero\n  k=4/0\n     ^");
        assert_eq!(
            error("k=-"),
            "`k` has no value: `-` marks an inactive lane\n  k=-\n    ^"
        );
        assert_eq!(
            parse_with("tid", &constants).unwrap_err().to_string(),
            "unknown name `tid`: the names are `lane`, `warpSize`, `threadIdx.x/y/z`, `blockDim.x/y/z` (with --block), and k, base (given with --define)"
        );
    }
}
