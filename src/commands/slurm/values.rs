//! The values `flitsim slurm` writes into its scripts, each checked before a line is written:
//! what goes on an `#SBATCH` line must be a plain word of SLURM's own syntax (sbatch, not the
//! shell, reads those lines, so quoting would not protect them), and nothing may hold a
//! control character (a newline would end the line it is on and start a command).

use flitsim::{Error, Result};
use std::path::Path;

/// The largest `--cpus`: SLURM keeps a task's CPUs in 16 bits, whose two highest values mean
/// "not set" and "unlimited".
pub const MAX_CPUS: usize = 65533;

/// Refuses `value` when it holds a control character: the error starts with `what` (the flag
/// or file), shows the value escaped and ends with `fix`.
pub fn no_control(what: &str, value: &str, fix: &str) -> Result<()> {
    match value.chars().find(|c| c.is_control()) {
        None => Ok(()),
        Some(c) => Err(Error::Input(format!(
            "{what}: {value:?} holds a control character (U+{:04X}), which would break a line of the job scripts; fix: {fix}",
            c as u32
        ))),
    }
}

/// A path as the scripts will say it: refused when it is not UTF-8 (its bytes could not be
/// written as they are) or holds a control character; `what` and `fix` as in [`no_control`].
pub fn script_path(what: &str, path: &Path, fix: &str) -> Result<String> {
    let text = path.to_str().ok_or_else(|| {
        Error::Input(format!(
            "{what}: {path:?} is not UTF-8, which the job scripts cannot hold exactly; fix: {fix}"
        ))
    })?;
    no_control(what, text, fix)?;
    Ok(text.to_string())
}

/// Refuses a directory of logs whose path holds a backslash: SLURM reads a log's whole
/// name as a pattern, in which a backslash anywhere turns off every field (`%a`, the array
/// task) and is dropped, so the logs would land elsewhere.
pub fn no_backslash(what: &str, dir: &str) -> Result<()> {
    if !dir.contains('\\') {
        return Ok(());
    }
    Err(Error::Input(format!(
        "{what}: {dir:?} holds a backslash, which SLURM reads in the names of the jobs' logs (it drops it and turns off their %a); fix: give {what} a path without a backslash"
    )))
}

/// `--partition`: one SLURM partition name or several separated by commas, each of ASCII
/// letters, digits, `_`, `-` and `.` (the characters partition names are made of, and none
/// that sbatch or the shell would read otherwise).
pub fn partition(p: &str) -> Result<&str> {
    let name = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
    };
    if p.split(',').all(name) {
        return Ok(p);
    }
    Err(Error::Input(format!(
        "--partition {p:?}: not a SLURM partition name or a comma-separated list of them; fix: give names of letters, digits, '_', '-' and '.', several separated by commas, e.g. --partition short or --partition short,long"
    )))
}

/// `--time`: one of SLURM's time limit forms — minutes, minutes:seconds,
/// hours:minutes:seconds, days-hours, days-hours:minutes, days-hours:minutes:seconds (each a
/// whole number of 1 to 9 digits) — or UNLIMITED or INFINITE (in any case).
pub fn time(t: &str) -> Result<&str> {
    let number = |s: &str| (1..=9).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
    let unlimited = ["UNLIMITED", "INFINITE"]
        .iter()
        .any(|w| t.eq_ignore_ascii_case(w));
    let (days, rest) = match t.split_once('-') {
        Some((d, r)) => (number(d), r),
        None => (true, t),
    };
    let fields: Vec<&str> = rest.split(':').collect();
    if unlimited || (days && fields.len() <= 3 && fields.iter().all(|f| number(f))) {
        return Ok(t);
    }
    Err(Error::Input(format!(
        "--time {t:?}: not a SLURM time limit; fix: give minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes, days-hours:minutes:seconds or UNLIMITED, e.g. --time 2:00:00 or --time 1-12"
    )))
}

/// `--cpus`: from 1 to [`MAX_CPUS`].
pub fn cpus(c: usize) -> Result<usize> {
    if (1..=MAX_CPUS).contains(&c) {
        return Ok(c);
    }
    Err(Error::Input(format!(
        "--cpus {c}: not from 1 to {MAX_CPUS}; fix: give --cpus C with 1 <= C <= {MAX_CPUS}, the CPUs each task's shard runs on"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slurm_time_forms_are_accepted_and_nothing_else() {
        for t in [
            "30",
            "30:15",
            "2:00:00",
            "1-12",
            "1-12:30",
            "1-12:30:05",
            "0",
            "UNLIMITED",
            "infinite",
            "123456789",
        ] {
            assert_eq!(time(t).unwrap(), t);
        }
        for t in [
            "",
            "1:2:3:4",
            "1-2:3:4:5",
            "-1",
            "1-",
            "1--2",
            "1-2-3",
            "1:",
            ":1",
            "1 :00",
            "2h",
            "1234567890",
            "1:00\n#SBATCH --x",
            "$(id)",
            "unlimited ",
        ] {
            let e = time(t).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("--time {t:?}: not a SLURM time")),
                "{e}"
            );
        }
    }

    #[test]
    fn partitions_are_names_or_comma_lists_of_names() {
        for p in ["short", "gpu-a100", "a_b.c", "short,long", "A,b,C9"] {
            assert_eq!(partition(p).unwrap(), p);
        }
        for p in [
            "", ",", "a,", ",a", "a,,b", "a b", "a\nb", "a;b", "'a'", "$(id)", "a=b", "a/b",
        ] {
            let e = partition(p).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("--partition {p:?}: not a SLURM")),
                "{e}"
            );
        }
    }

    #[test]
    fn cpus_and_control_characters() {
        assert_eq!(cpus(1).unwrap(), 1);
        assert_eq!(cpus(MAX_CPUS).unwrap(), MAX_CPUS);
        assert!(cpus(0).unwrap_err().to_string().starts_with("--cpus 0: "));
        assert!(cpus(MAX_CPUS + 1).is_err());
        assert!(no_control("--set", "a=1 $(x) ';' *", "f").is_ok());
        for (v, code) in [
            ("a\nb", "000A"),
            ("a\rb", "000D"),
            ("\t", "0009"),
            ("\u{7f}", "007F"),
            ("\u{85}", "0085"),
        ] {
            let e = no_control("--set", v, "f").unwrap_err().to_string();
            assert_eq!(
                e,
                format!(
                    "--set: {v:?} holds a control character (U+{code}), which would break a line of the job scripts; fix: f"
                )
            );
            assert_eq!(e.lines().count(), 1);
        }
    }
}
