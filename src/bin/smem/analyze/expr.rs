//! Address expressions in `lane`: the index expression of a kernel, with the
//! lane in place of `threadIdx.x % 32`.
//!
//! A hand-written recursive-descent parser: the language is tiny, and its
//! error messages must point at the column where the text goes wrong, which a
//! parser written for it does best.
//!
//! The grammar, with C's precedence and associativity:
//!
//! ```text
//! expr    := logic ('?' expr ':' expr)?
//! logic   := binary operators, loosest first: || && | ^ & (== !=) (< <= > >=) (<< >>) (+ -) (* / %)
//! unary   := '-' unary | primary
//! primary := INTEGER | 'lane' | '(' expr ')' | '-'
//! ```
//!
//! Integers are decimal or `0x` hexadecimal, evaluated in 64-bit signed
//! arithmetic with overflow and division by zero reported. A `-` where an
//! operand is expected and none follows (before `)`, `:` or the end) is the
//! *inactive* value: the lane takes no part in the instruction, as in
//! `lane < 16 ? lane * 8 : -`. Any operation on an inactive value is inactive;
//! comparisons and `&&`/`||` give 0 or 1, and `&&`, `||` and `?:` evaluate only
//! the side they need.

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
    Inactive,
    Negate(Box<Node>, Span),
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
            (b'+', _) => (Token::Op(BinOp::Add), 1),
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
                let span = Span { start, end };
                let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
                    Some(hex) => i64::from_str_radix(hex, 16),
                    None => text.parse(),
                };
                let value = parsed.map_err(|err| ExprError {
                    message: match err.kind() {
                        std::num::IntErrorKind::PosOverflow => {
                            format!("number `{text}` is too large")
                        }
                        _ => format!("`{text}` is not a number"),
                    },
                    span,
                })?;
                (Token::Number(value), end - i)
            }
            (b'a'..=b'z' | b'A'..=b'Z' | b'_', _) => {
                let end = bytes[i..]
                    .iter()
                    .position(|b| !b.is_ascii_alphanumeric() && *b != b'_')
                    .map_or(bytes.len(), |n| i + n);
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
struct Parser {
    tokens: Vec<(Token, Span)>,
    next: usize,
}

impl Parser {
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
        if self.peek().0 != Token::Minus {
            return self.primary();
        }
        let (_, span) = self.bump();
        // A `-` with no operand after it is the inactive value.
        if matches!(self.peek().0, Token::End | Token::Close | Token::Colon) {
            return Ok(Node::Inactive);
        }
        Ok(Node::Negate(Box::new(self.unary()?), span))
    }

    fn primary(&mut self) -> Result<Node, ExprError> {
        let (token, span) = self.bump();
        match token {
            Token::Number(n) => Ok(Node::Number(n)),
            Token::Name(name) if name == "lane" => Ok(Node::Lane),
            Token::Name(name) => Err(ExprError {
                message: format!("unknown name `{name}`: the only variable is `lane`"),
                span,
            }),
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
                message: format!("expected a number, `lane`, `(` or `-`, found {other}"),
                span,
            }),
        }
    }
}

/// Parses `source`.
///
/// # Errors
///
/// An [`ExprError`] locating the first token that does not fit the grammar,
/// an unknown name, a malformed or too large number, or a stray character.
pub fn parse(source: &str) -> Result<Expr, ExprError> {
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
    let mut parser = Parser { tokens, next: 0 };
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
        Node::Inactive => None,
        Node::Negate(inner, span) => match eval(inner, lane)? {
            Some(v) => Some(v.checked_neg().ok_or_else(|| overflow(*span))?),
            None => None,
        },
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
            "expected a number, `lane`, `(` or `-`, found `)`\n  lane*)\n       ^"
        );
        assert_eq!(
            parse_error("lane**4"),
            "expected a number, `lane`, `(` or `-`, found `*`\n  lane**4\n       ^"
        );
        assert_eq!(
            parse_error("tid*4"),
            "unknown name `tid`: the only variable is `lane`\n  tid*4\n  ^^^"
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
}
