// Present so that the build dependencies in Cargo.toml take part in feature resolution.
fn main() {}
