//! Errors, each mapped to the command line's exit code.

use std::fmt;

/// Exit code for bad input: a missing file, a TOML error, an unknown key, an out-of-range value.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code when the deadlock watchdog fires.
pub const EXIT_DEADLOCK: i32 = 3;
/// Exit code for an I/O failure while writing results.
pub const EXIT_IO: i32 = 4;

/// A flitsim failure: bad input, a deadlock, or an I/O error, each with its message.
#[derive(Debug)]
pub enum Error {
    /// Bad input: the message names the file, the key and the fix.
    Input(String),
    /// The watchdog found flits that cannot move.
    Deadlock(String),
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
            Error::Input(m) | Error::Deadlock(m) | Error::Io(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

/// A result whose error is a flitsim [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
