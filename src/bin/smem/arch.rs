//! `--arch`: a compute capability by version, GPU or architecture name, as
//! `ComputeCapability`'s `FromStr` reads them, with a note on stderr when the
//! name is an alias (CUDA 12's `sm_101`, an architecture name) so that the
//! capability used is never a surprise.

use std::io::Write as _;

use smem_model::ComputeCapability;

/// Parses one `--arch` value; clap reports the error with the list of versions.
///
/// # Errors
///
/// [`smem_model::Error::UnknownCapability`] when the text names no capability.
pub fn parse(text: &str) -> Result<ComputeCapability, smem_model::Error> {
    let cc: ComputeCapability = text.parse()?;
    if let Some(note) = alias_note(text, cc) {
        // Nothing useful is left to do when stderr itself is gone.
        let _ = writeln!(anstream::stderr().lock(), "note: {note}");
    }
    Ok(cc)
}

/// What to say when `text` is an alias rather than the capability's own name.
pub fn alias_note(text: &str, cc: ComputeCapability) -> Option<String> {
    let key: String = text
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '.')
        .collect::<String>()
        .to_ascii_lowercase();
    let digits = key.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    if cc == ComputeCapability::Sm110 && (digits.starts_with("101") || digits == "10.1") {
        return Some(format!(
            "{text} is CUDA 12's name for compute capability 11.0 (sm_110, Thor); using 11.0"
        ));
    }
    let architecture = cc.architecture();
    if key == architecture.to_string().to_ascii_lowercase() || key == "adalovelace" {
        let others: Vec<String> = ComputeCapability::ALL
            .into_iter()
            .filter(|other| other.architecture() == architecture && *other != cc)
            .map(|other| other.to_string())
            .collect();
        if !others.is_empty() {
            return Some(format!(
                "{text} is taken as compute capability {cc} ({}, {}); {architecture} is also {}: name the GPU or version where capacities matter",
                cc.sm_name(),
                cc.names().first().copied().unwrap_or(""),
                others.join(", ")
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_are_noted_and_plain_names_are_not() {
        assert_eq!(
            alias_note("sm_101", ComputeCapability::Sm110).as_deref(),
            Some("sm_101 is CUDA 12's name for compute capability 11.0 (sm_110, Thor); using 11.0")
        );
        assert!(alias_note("10.1", ComputeCapability::Sm110).is_some());
        assert!(alias_note("sm_110", ComputeCapability::Sm110).is_none());
        assert!(alias_note("thor", ComputeCapability::Sm110).is_none());
        assert_eq!(
            alias_note("ampere", ComputeCapability::Sm80).as_deref(),
            Some("ampere is taken as compute capability 8.0 (sm_80, A100); Ampere is also 8.6, 8.7: name the GPU or version where capacities matter")
        );
        assert!(alias_note("hopper", ComputeCapability::Sm90).is_none());
        assert!(alias_note("sm_90", ComputeCapability::Sm90).is_none());
        assert!(alias_note("H100", ComputeCapability::Sm90).is_none());
    }
}
