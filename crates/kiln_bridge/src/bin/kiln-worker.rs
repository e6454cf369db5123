//! `kiln-worker`: the process a host's bindings run guests in when they ask for process
//! isolation. It speaks the session protocol on standard input and output (see
//! `kiln_bridge::protocol`) and exits when its input ends.

fn main() -> std::process::ExitCode {
    match kiln_bridge::serve_worker_process() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kiln-worker: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
