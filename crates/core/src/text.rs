//! Reading the whitespace-separated integer streams of the judges, with line numbers for errors.

use std::io::BufRead;

use crate::InputError;

/// Whitespace-separated tokens of a reader, one line in memory at a time (judges stream).
///
/// A UTF-8 byte-order mark before the first line is skipped. In strict mode (`judge
/// --strict`, as a contest's validator reads) each record — a count, an operation — must be
/// alone on its own line: [`Tokens::end_record`] refuses anything after one on its line, a
/// record spread over lines is refused, and [`Tokens::end_input`] refuses anything after the
/// last.
pub struct Tokens<R> {
    reader: R,
    buf: Vec<u8>,
    line_no: usize,
    pos: usize,
    eof: bool,
    /// Whether the last line read ended with a newline (then the end of input is on the next line).
    terminated: bool,
    strict: bool,
    /// The line the record being read began on (strict mode).
    record_line: Option<usize>,
}

/// The UTF-8 byte-order mark some editors put at the start of a text file.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Drops a byte-order mark from the start of the first line of an input.
pub fn strip_bom(first_line: &mut Vec<u8>) {
    if first_line.starts_with(BOM) {
        first_line.drain(..BOM.len());
    }
}

impl<R: BufRead> Tokens<R> {
    pub fn new(reader: R) -> Self {
        Tokens {
            reader,
            buf: Vec::new(),
            line_no: 0,
            pos: 0,
            eof: false,
            terminated: false,
            strict: false,
            record_line: None,
        }
    }

    /// The same tokens read strictly (see the type's documentation).
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// The 1-based number of the line the last token came from (or the last line read).
    pub fn line(&self) -> usize {
        self.line_no.max(1)
    }

    /// The next token and its line number; `None` at the end of the input.
    pub fn next_token(&mut self) -> Result<Option<(usize, &str)>, InputError> {
        Ok(self
            .next_span()?
            .map(|(line, start, end)| (line, self.text(start, end))))
    }

    /// The token at `start..end` of the line in memory (checked to be UTF-8 by `next_span`).
    fn text(&self, start: usize, end: usize) -> &str {
        std::str::from_utf8(&self.buf[start..end]).unwrap_or_default()
    }

    /// The next token's line and its place in the line in memory.
    fn next_span(&mut self) -> Result<Option<(usize, usize, usize)>, InputError> {
        loop {
            while self.pos < self.buf.len() && self.buf[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if self.pos < self.buf.len() {
                let start = self.pos;
                while self.pos < self.buf.len() && !self.buf[self.pos].is_ascii_whitespace() {
                    self.pos += 1;
                }
                std::str::from_utf8(&self.buf[start..self.pos])
                    .map_err(|_| InputError::new(self.line_no, "the input is not UTF-8 text"))?;
                return Ok(Some((self.line_no, start, self.pos)));
            }
            if self.eof {
                return Ok(None);
            }
            self.buf.clear();
            self.pos = 0;
            let more = read_line_capped(&mut self.reader, &mut self.buf, MAX_LINE_BYTES)
                .map_err(|e| InputError::new(self.line_no + 1, line_error(&e)))?;
            if !more {
                self.eof = true;
            } else {
                self.line_no += 1;
                if self.line_no == 1 {
                    strip_bom(&mut self.buf);
                }
                self.terminated = self.buf.ends_with(b"\n");
            }
        }
    }

    /// The next token as an integer; `what` names the expected value in the error message (it is
    /// only formatted on error, so `format_args!` costs nothing on the hot path).
    ///
    /// Integers too large for `i64` saturate, so a caller can treat them as out of range.
    pub fn expect_int(&mut self, what: impl std::fmt::Display) -> Result<i64, InputError> {
        let (line, token) = self.expect_token(&what)?;
        parse_integer(token).ok_or_else(|| {
            InputError::new(
                line,
                format!("expected an integer for {what}, found `{}`", shorten(token)),
            )
        })
    }

    /// The next token as an integer in `range`; anything else — too large for any integer
    /// type too — is refused naming `what`, the token as written and `allowed`.
    pub fn expect_in_range(
        &mut self,
        what: impl std::fmt::Display,
        range: std::ops::RangeInclusive<i64>,
        allowed: &str,
    ) -> Result<i64, InputError> {
        let (line, token) = self.expect_token(&what)?;
        let value = match token.parse::<i64>() {
            Ok(value) if range.contains(&value) => return Ok(value),
            Ok(value) => Some(value),
            Err(_) => parse_integer(token),
        };
        let message = match value {
            Some(_) => format!(
                "{what} is out of range: found {}, expected {allowed}",
                shorten(token)
            ),
            None => format!("expected an integer for {what}, found `{}`", shorten(token)),
        };
        Err(InputError::new(line, message))
    }

    /// The next token, or the error for an input that ended where `what` was expected. In
    /// strict mode a record must not continue on another line.
    fn expect_token(&mut self, what: &impl std::fmt::Display) -> Result<(usize, &str), InputError> {
        let ended_line = self.line() + usize::from(self.line_no > 0 && self.terminated);
        let Some((line, start, end)) = self.next_span()? else {
            return Err(InputError::new(
                ended_line,
                format!("the input ended where {what} was expected"),
            ));
        };
        if self.strict {
            match self.record_line {
                Some(first) if first != line => {
                    return Err(InputError::new(
                        line,
                        format!(
                            "{what} is not on line {first} with the rest of its record \
                             (--strict: one record a line)"
                        ),
                    ))
                }
                Some(_) => {}
                None => self.record_line = Some(line),
            }
        }
        Ok((line, self.text(start, end)))
    }

    /// In strict mode: the record just read (`what`) must end its line.
    pub fn end_record(&mut self, what: impl std::fmt::Display) -> Result<(), InputError> {
        self.record_line = None;
        if !self.strict {
            return Ok(());
        }
        let rest = &self.buf[self.pos..];
        match rest.split(u8::is_ascii_whitespace).find(|t| !t.is_empty()) {
            None => Ok(()),
            Some(extra) => Err(InputError::new(
                self.line_no,
                format!(
                    "`{}` after {what} on its line (--strict: one record a line)",
                    shorten(&String::from_utf8_lossy(extra))
                ),
            )),
        }
    }

    /// In strict mode: nothing but white space may follow the last record.
    pub fn end_input(&mut self) -> Result<(), InputError> {
        if !self.strict {
            return Ok(());
        }
        match self.next_token()? {
            None => Ok(()),
            Some((line, token)) => Err(InputError::new(
                line,
                format!(
                    "`{}` after the last record (--strict: nothing may follow it)",
                    shorten(token)
                ),
            )),
        }
    }
}

/// The longest line a judge or the engine reads: anything longer is refused with an error
/// rather than read into memory until it runs out (`/dev/zero` has no newline).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Reads one line, its newline included, into `buf` (appending): `Ok(true)` for a line (the last
/// may lack its newline), `Ok(false)` at the end of the input. A line longer than `limit` bytes
/// is an `InvalidData` error, raised as soon as the limit is passed.
pub fn read_line_capped<R: BufRead + ?Sized>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<bool> {
    let start = buf.len();
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(buf.len() > start);
        }
        let (take, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        if buf.len() - start + take > limit + usize::from(done) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("the line is longer than {} KiB", limit / 1024),
            ));
        }
        buf.extend_from_slice(&available[..take]);
        reader.consume(take);
        if done {
            return Ok(true);
        }
    }
}

/// The words for a failed line read.
pub fn line_error(e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::InvalidData {
        e.to_string()
    } else {
        format!("cannot read input: {e}")
    }
}

/// Parses an optionally signed decimal integer, saturating at the `i64` bounds.
pub fn parse_integer(token: &str) -> Option<i64> {
    let digits = token.strip_prefix(['+', '-']).unwrap_or(token);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(token.parse::<i64>().unwrap_or(if token.starts_with('-') {
        i64::MIN
    } else {
        i64::MAX
    }))
}

/// A token cut to a readable length for error messages.
pub fn shorten(token: &str) -> String {
    const LIMIT: usize = 40;
    if token.chars().count() <= LIMIT {
        token.to_string()
    } else {
        let cut: String = token.chars().take(LIMIT).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_line_is_refused_without_reading_it_all() {
        // An endless reader, like /dev/zero: the error comes after the limit, not never.
        let mut endless = std::io::BufReader::new(std::io::repeat(b'1'));
        let mut buf = Vec::new();
        let e = read_line_capped(&mut endless, &mut buf, 4096).unwrap_err();
        assert_eq!(e.to_string(), "the line is longer than 4 KiB");
        assert!(buf.len() <= 4096);
        let mut tokens = Tokens::new(std::io::BufReader::new(std::io::repeat(b'7')));
        let e = tokens.expect_int("Q").unwrap_err();
        assert_eq!(e.to_string(), "line 1: the line is longer than 1024 KiB");
        let mut short = &b"ab\ncd"[..];
        let mut buf = Vec::new();
        assert!(read_line_capped(&mut short, &mut buf, 2).unwrap());
        assert!(read_line_capped(&mut short, &mut buf, 2).unwrap());
        assert_eq!(buf, b"ab\ncd");
        assert!(!read_line_capped(&mut short, &mut buf, 2).unwrap());
    }

    #[test]
    fn tokens_carry_line_numbers() {
        let mut t = Tokens::new("2\n 1 2\n\n3\n".as_bytes());
        assert_eq!(t.next_token().unwrap(), Some((1, "2")));
        assert_eq!(t.next_token().unwrap(), Some((2, "1")));
        assert_eq!(t.next_token().unwrap(), Some((2, "2")));
        assert_eq!(t.next_token().unwrap(), Some((4, "3")));
        assert_eq!(t.next_token().unwrap(), None);
        assert_eq!(t.next_token().unwrap(), None);
    }

    #[test]
    fn integers_and_errors() {
        let mut t = Tokens::new("-5 +7 x1 99999999999999999999999".as_bytes());
        assert_eq!(t.expect_int("a").unwrap(), -5);
        assert_eq!(t.expect_int("b").unwrap(), 7);
        let err = t.expect_int("xs").unwrap_err();
        assert_eq!(err.line, 1);
        assert!(err.message.contains("xs") && err.message.contains("x1"));
        assert_eq!(t.expect_int("c").unwrap(), i64::MAX);
        let err = t.expect_int("ys").unwrap_err();
        assert!(err.message.contains("ended"), "{err}");
    }

    #[test]
    fn end_of_input_names_the_next_line() {
        let mut t = Tokens::new("1\n".as_bytes());
        t.expect_int("q").unwrap();
        assert_eq!(t.expect_int("xs").unwrap_err().line, 2);
        let mut t = Tokens::new("1".as_bytes());
        t.expect_int("q").unwrap();
        assert_eq!(t.expect_int("xs").unwrap_err().line, 1);
    }

    #[test]
    fn non_utf8_is_an_error() {
        let mut t = Tokens::new(&b"\xff\xfe"[..]);
        assert!(t.next_token().is_err());
    }
}
