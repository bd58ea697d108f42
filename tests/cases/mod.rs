//! How many cases a property test runs: each `proptest!` block has a default
//! of its own, and the `PROPTEST_CASES` environment variable, when set,
//! overrides every block's (proptest's own default configuration reads it).

use proptest::test_runner::Config;

/// `default` cases, or as many as `PROPTEST_CASES` asks for.
pub fn cases(default: u32) -> Config {
    let mut config = Config::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = default;
    }
    config
}
