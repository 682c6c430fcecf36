//! Errors, each mapped to the command line's exit code.

use crate::deadlock::DeadlockReport;
use std::fmt;

/// Exit code for bad input: a missing file, a TOML error, an unknown key, an out-of-range value.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code when the deadlock watchdog fires.
pub const EXIT_DEADLOCK: i32 = 3;
/// Exit code for an I/O failure while writing results, and (the binary's allocator) for
/// memory exhausted.
pub const EXIT_IO: i32 = 4;

/// A flitsim failure: bad input or an I/O error, each with its message, or a deadlock with its
/// report.
#[derive(Debug)]
pub enum Error {
    /// Bad input: the message names the file, the key and the fix.
    Input(String),
    /// The watchdog found flits that cannot move: the report says where and why.
    Deadlock(Box<DeadlockReport>),
    /// Writing results failed.
    Io(String),
}

impl Error {
    /// The command line's exit code: [`EXIT_BAD_INPUT`], [`EXIT_DEADLOCK`] or [`EXIT_IO`].
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) => EXIT_BAD_INPUT,
            Error::Deadlock(_) => EXIT_DEADLOCK,
            Error::Io(_) => EXIT_IO,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input(m) | Error::Io(m) => f.write_str(m),
            Error::Deadlock(r) => write!(f, "{r}"),
        }
    }
}

impl std::error::Error for Error {}

/// A result whose error is a flitsim [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// The most characters of a value a message echoes whole.
const ECHO_CHARS: usize = 40;

/// A number as a message shows it: its shortest exact form, or scientific notation when that
/// would be long (`1e300`, not 301 digits).
pub fn number(x: f64) -> String {
    let plain = format!("{x}");
    if plain.len() > 12 {
        format!("{x:e}")
    } else {
        plain
    }
}

/// `text` with its control characters escaped (`\n`, `\u{1b}`), so that an echo is one line.
fn visible(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let escaped: Vec<char> = match c.is_control() {
                true => c.escape_default().collect(),
                false => vec![c],
            };
            escaped
        })
        .collect()
}

/// The first [`ECHO_CHARS`] characters of a long text, or None when it is short.
fn head(text: &str) -> Option<&str> {
    let (cut, _) = text.char_indices().nth(ECHO_CHARS)?;
    Some(&text[..cut])
}

/// A value of the user's as a message echoes it: whole when short, else its first 40
/// characters, `…` and its length (`xxxx… (20480 bytes)`), so that a message stays one
/// readable line whatever was given.
pub fn echoed(text: &str) -> String {
    match head(text) {
        Some(h) => format!("{}… ({} bytes)", visible(h), text.len()),
        None => visible(text),
    }
}

/// A value of the user's as a message names it where its problem is told elsewhere in the
/// message (the `--set` or the configuration a problem is in): whole when short, else only its
/// length (`… (20480 bytes)`).
pub fn sized(text: &str) -> String {
    match head(text) {
        Some(_) => format!("… ({} bytes)", text.len()),
        None => visible(text),
    }
}

/// A string of the user's as a message quotes it: in double quotes, escaped as Rust's `{:?}`
/// escapes it, and cut as [`echoed`] cuts it (`"xxxx"… (20480 bytes)`).
pub fn quoted(text: &str) -> String {
    match head(text) {
        Some(h) => format!("{h:?}… ({} bytes)", text.len()),
        None => format!("{text:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::{echoed, number, quoted, sized};

    #[test]
    fn long_values_are_cut_and_numbers_compact() {
        let long = "é".repeat(41);
        assert_eq!(echoed(&long), format!("{}… (82 bytes)", "é".repeat(40)));
        assert_eq!(quoted(&long), format!("\"{}\"… (82 bytes)", "é".repeat(40)));
        assert_eq!(sized(&long), "… (82 bytes)");
        let short = "x".repeat(40);
        assert_eq!((echoed(&short), sized(&short)), (short.clone(), short));
        assert_eq!(quoted("a\"b"), "\"a\\\"b\"");
        assert_eq!(number(1e300), "1e300");
        assert_eq!(number(-1.5e-300), "-1.5e-300");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(1e12), "1e12");
    }
}
