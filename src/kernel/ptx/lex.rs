//! Cutting PTX text into tokens, borrowed from the input.
//!
//! A token is an identifier (which here takes in dotted modifiers and `::`
//! parts: `ld.shared.v4.f32`, `%tid.x`, `cp.async.cg.shared.global.L2::128B`
//! are one token each), a directive (`.reg`), a number, a string or one
//! punctuation byte. Comments and white space are skipped; the lexer counts
//! lines as it goes, so a token knows its line without a second pass.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A name, opcode or register, possibly with dotted parts.
    Ident,
    /// `.name`.
    Directive,
    /// An integer literal (decimal, `0x`, `0b`, octal, optional `U`).
    Int,
    /// `0f...`, `0d...` or a decimal literal with `.` or an exponent.
    Float,
    /// `"..."` (the text includes the quotes).
    Str,
    /// One byte of punctuation.
    Punct(u8),
    /// The end of the input.
    Eof,
}

/// A token: its kind, its text and where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token<'a> {
    pub(crate) kind: Kind,
    pub(crate) text: &'a str,
    /// Byte offset of its first byte in the input.
    pub(crate) start: usize,
    /// Its line, from 1.
    pub(crate) line: u32,
}

/// What went wrong while cutting tokens: the offset of the offending text
/// and what was expected there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LexError {
    pub(crate) start: usize,
    pub(crate) line: u32,
    pub(crate) expected: &'static str,
}

/// The lexer: a position in the input and the line it is on.
#[derive(Debug, Clone)]
pub(crate) struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    line: u32,
}

const fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || matches!(b, b'_' | b'$' | b'%')
}

const fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$')
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Lexer {
            text,
            pos: 0,
            line: 1,
        }
    }

    pub(crate) fn text(&self) -> &'a str {
        self.text
    }

    /// Skips white space and comments; an unterminated `/*` is an error.
    fn skip_trivia(&mut self) -> Result<(), LexError> {
        let bytes = self.text.as_bytes();
        loop {
            match bytes.get(self.pos) {
                Some(b'\n') => {
                    self.line += 1;
                    self.pos += 1;
                }
                Some(b' ' | b'\t' | b'\r' | b'\x0c' | b'\x0b') => self.pos += 1,
                Some(b'/') if bytes.get(self.pos + 1) == Some(&b'/') => {
                    match memchr_newline(&bytes[self.pos..]) {
                        Some(n) => self.pos += n,
                        None => self.pos = bytes.len(),
                    }
                }
                Some(b'/') if bytes.get(self.pos + 1) == Some(&b'*') => {
                    let (start, line) = (self.pos, self.line);
                    let rest = &bytes[self.pos + 2..];
                    let Some(end) = rest.windows(2).position(|w| w == b"*/") else {
                        return Err(LexError {
                            start,
                            line,
                            expected: "the end `*/` of a comment",
                        });
                    };
                    let comment = &rest[..end];
                    self.line += comment.iter().filter(|&&b| b == b'\n').count() as u32;
                    self.pos += 2 + end + 2;
                }
                _ => return Ok(()),
            }
        }
    }

    /// The next token.
    pub(crate) fn next_token(&mut self) -> Result<Token<'a>, LexError> {
        self.skip_trivia()?;
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let line = self.line;
        let Some(&first) = bytes.get(start) else {
            return Ok(Token {
                kind: Kind::Eof,
                text: "",
                start,
                line,
            });
        };
        let kind = if is_ident_start(first) {
            self.pos += 1;
            self.ident_rest();
            Kind::Ident
        } else if first == b'.' && bytes.get(start + 1).is_some_and(|&b| is_ident_start(b)) {
            self.pos += 1;
            self.word();
            Kind::Directive
        } else if first.is_ascii_digit() {
            self.number()?
        } else if first == b'"' {
            self.string()?;
            Kind::Str
        } else if first.is_ascii_graphic() {
            self.pos += 1;
            Kind::Punct(first)
        } else {
            return Err(LexError {
                start,
                line,
                expected: "a token (a name, number, string or punctuation)",
            });
        };
        Ok(Token {
            kind,
            text: &self.text[start..self.pos],
            start,
            line,
        })
    }

    /// Identifier characters and `::` parts (`shared::cta`).
    fn word(&mut self) {
        let bytes = self.text.as_bytes();
        loop {
            while bytes.get(self.pos).is_some_and(|&b| is_ident_char(b)) {
                self.pos += 1;
            }
            if bytes.get(self.pos) == Some(&b':')
                && bytes.get(self.pos + 1) == Some(&b':')
                && bytes.get(self.pos + 2).is_some_and(|&b| is_ident_char(b))
            {
                self.pos += 2;
                continue;
            }
            return;
        }
    }

    /// The rest of an identifier: words joined by `.`.
    fn ident_rest(&mut self) {
        let bytes = self.text.as_bytes();
        loop {
            self.word();
            if bytes.get(self.pos) == Some(&b'.')
                && bytes.get(self.pos + 1).is_some_and(|&b| is_ident_char(b))
            {
                self.pos += 1;
                continue;
            }
            return;
        }
    }

    fn number(&mut self) -> Result<Kind, LexError> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let error = LexError {
            start,
            line: self.line,
            expected: "a number",
        };
        let hex_run = |from: usize| {
            bytes[from..]
                .iter()
                .take_while(|b| b.is_ascii_hexdigit())
                .count()
        };
        if bytes[start] == b'0' {
            match bytes.get(start + 1) {
                Some(b'f' | b'F') => {
                    let n = hex_run(start + 2);
                    if n != 8 {
                        return Err(LexError {
                            expected: "8 hex digits after 0f (an f32 literal)",
                            ..error
                        });
                    }
                    self.pos = start + 10;
                    return self.end_number(Kind::Float, error);
                }
                Some(b'd' | b'D') => {
                    let n = hex_run(start + 2);
                    if n != 16 {
                        return Err(LexError {
                            expected: "16 hex digits after 0d (an f64 literal)",
                            ..error
                        });
                    }
                    self.pos = start + 18;
                    return self.end_number(Kind::Float, error);
                }
                Some(b'x' | b'X') => {
                    let n = hex_run(start + 2);
                    if n == 0 {
                        return Err(LexError {
                            expected: "hex digits after 0x",
                            ..error
                        });
                    }
                    self.pos = start + 2 + n;
                    if matches!(bytes.get(self.pos), Some(b'U' | b'u')) {
                        self.pos += 1;
                    }
                    return self.end_number(Kind::Int, error);
                }
                Some(b'b' | b'B') if matches!(bytes.get(start + 2), Some(b'0' | b'1')) => {
                    self.pos = start + 2;
                    while matches!(bytes.get(self.pos), Some(b'0' | b'1')) {
                        self.pos += 1;
                    }
                    if matches!(bytes.get(self.pos), Some(b'U' | b'u')) {
                        self.pos += 1;
                    }
                    return self.end_number(Kind::Int, error);
                }
                _ => {}
            }
        }
        while bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        let mut kind = Kind::Int;
        if bytes.get(self.pos) == Some(&b'.')
            && bytes.get(self.pos + 1).is_some_and(u8::is_ascii_digit)
        {
            kind = Kind::Float;
            self.pos += 1;
            while bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
                self.pos += 1;
            }
        }
        if matches!(bytes.get(self.pos), Some(b'e' | b'E')) {
            let mut at = self.pos + 1;
            if matches!(bytes.get(at), Some(b'+' | b'-')) {
                at += 1;
            }
            if bytes.get(at).is_some_and(u8::is_ascii_digit) {
                kind = Kind::Float;
                self.pos = at;
                while bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
                    self.pos += 1;
                }
            }
        }
        if kind == Kind::Int && matches!(bytes.get(self.pos), Some(b'U' | b'u')) {
            self.pos += 1;
        }
        self.end_number(kind, error)
    }

    /// A number must not run into a name (`12abc`).
    fn end_number(&mut self, kind: Kind, error: LexError) -> Result<Kind, LexError> {
        if self
            .text
            .as_bytes()
            .get(self.pos)
            .is_some_and(|&b| is_ident_char(b))
        {
            return Err(error);
        }
        Ok(kind)
    }

    fn string(&mut self) -> Result<(), LexError> {
        let bytes = self.text.as_bytes();
        let (start, line) = (self.pos, self.line);
        self.pos += 1;
        loop {
            match bytes.get(self.pos) {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') if self.pos + 1 < bytes.len() && bytes[self.pos + 1] != b'\n' => {
                    self.pos += 2;
                }
                Some(b'\n') | None => {
                    return Err(LexError {
                        start,
                        line,
                        expected: "the closing `\"` of a string on its line",
                    });
                }
                Some(_) => self.pos += 1,
            }
        }
    }
}

/// The offset of the first `\n` in `bytes`.
fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<(Kind, &str)> {
        let mut lexer = Lexer::new(text);
        let mut out = Vec::new();
        loop {
            let token = lexer.next_token().unwrap();
            if token.kind == Kind::Eof {
                return out;
            }
            out.push((token.kind, token.text));
        }
    }

    #[test]
    fn dotted_identifiers_are_one_token() {
        assert_eq!(
            tokens("cp.async.cg.shared.global.L2::128B [%r1], %tid.x;"),
            [
                (Kind::Ident, "cp.async.cg.shared.global.L2::128B"),
                (Kind::Punct(b'['), "["),
                (Kind::Ident, "%r1"),
                (Kind::Punct(b']'), "]"),
                (Kind::Punct(b','), ","),
                (Kind::Ident, "%tid.x"),
                (Kind::Punct(b';'), ";"),
            ]
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(
            tokens("0f3F800000 0d3FF0000000000000 0x1fU 017 0b101 8.7 1e-3 42"),
            [
                (Kind::Float, "0f3F800000"),
                (Kind::Float, "0d3FF0000000000000"),
                (Kind::Int, "0x1fU"),
                (Kind::Int, "017"),
                (Kind::Int, "0b101"),
                (Kind::Float, "8.7"),
                (Kind::Float, "1e-3"),
                (Kind::Int, "42"),
            ]
        );
    }

    #[test]
    fn comments_and_lines() {
        let mut lexer = Lexer::new("// one\n/* two\nthree */ .reg\n");
        let token = lexer.next_token().unwrap();
        assert_eq!(
            (token.kind, token.text, token.line),
            (Kind::Directive, ".reg", 3)
        );
    }

    #[test]
    fn errors() {
        let mut lexer = Lexer::new("  /* open");
        assert_eq!(lexer.next_token().unwrap_err().start, 2);
        let mut lexer = Lexer::new("0f12");
        assert_eq!(
            lexer.next_token().unwrap_err().expected,
            "8 hex digits after 0f (an f32 literal)"
        );
        let mut lexer = Lexer::new("\"abc\n\"");
        assert!(lexer.next_token().is_err());
    }
}
