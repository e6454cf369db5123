//! Link the `kiln` command as a position-dependent executable: a position-independent one
//! makes the dynamic loader apply about 15,000 relocations at every start (0.38 M
//! instructions, an eighth of running a one-line script). Only this binary: the Node
//! addon and the Python extension are shared libraries and stay position-independent.

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.contains("linux") && target.starts_with("x86_64") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
