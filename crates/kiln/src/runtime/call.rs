//! Calling into a warm runtime: a host that evaluated its code once (a module, a script
//! defining functions) starts each later execution by calling one of the guest's global
//! functions with host values, without compiling anything.

use super::{ErrorKind, ErrorReport, Outcome, Runtime};
use crate::host::HostValue;
use crate::value::Value;

impl Runtime {
    /// Start an execution that calls the global function `function` with `args` (copied
    /// into the guest as fresh values), with fresh budgets, then runs its jobs. When the
    /// function returns a promise, the execution lasts until the promise settles, suspending
    /// whenever the guest can only wait for the host (continue it with
    /// [`Runtime::resume`]), exactly as an execution [`Runtime::start`] began.
    ///
    /// The function is read from the global object as stored (no getter runs); a missing
    /// one, or one that is not callable, is an [`ErrorKind::Host`] error.
    ///
    /// ```
    /// use kiln::{HostValue, Outcome, Runtime};
    ///
    /// let mut rt = Runtime::new();
    /// rt.run_script("function greet(name) { return 'hello ' + name }", "init.js").unwrap();
    /// let outcome = rt.call("greet", &[HostValue::from("kiln")]).unwrap();
    /// assert_eq!(outcome, Outcome::Complete(HostValue::from("hello kiln")));
    /// ```
    pub fn call(&mut self, function: &str, args: &[HostValue]) -> Result<Outcome, ErrorReport> {
        self.guarded(|rt| {
            rt.end_execution();
            rt.vm.meter.reset();
            rt.vm.meter.start_clock();
            let result = match rt.call_and_jobs(function, args) {
                Ok(value) => {
                    rt.execution = Some(value);
                    rt.vm.pinned.push(value);
                    rt.outcome()
                }
                Err(e) => Err(e),
            };
            rt.finish_step(result)
        })
    }

    fn call_and_jobs(&mut self, function: &str, args: &[HostValue]) -> Result<Value, ErrorReport> {
        let global = self.vm.intrinsics.global;
        let key = self.vm.key(function);
        let callee = match self.vm.heap.own_property(global, key) {
            Some(p) if !p.attrs.is_accessor() && self.vm.is_callable(p.value) => p.value,
            _ => {
                return Err(ErrorReport::host(
                    ErrorKind::Host,
                    format!("the guest has no global function {function}"),
                ));
            }
        };
        let mut guest_args = Vec::with_capacity(args.len());
        for (i, arg) in args.iter().enumerate() {
            // No collection happens outside the dispatch loop, so the values made so far
            // stay alive until the call puts them on the stack.
            match self.vm.to_guest(arg) {
                Ok(v) => guest_args.push(v),
                Err(e) => {
                    return Err(ErrorReport::host(
                        ErrorKind::Host,
                        format!("argument {i} of {function} {e}"),
                    ));
                }
            }
        }
        let value = match self.vm.call(callee, Value::UNDEFINED, &guest_args) {
            Ok(v) => v,
            Err(_) => return Err(self.report(ErrorKind::Exception)),
        };
        self.vm.pinned.push(value);
        let jobs = self.vm.run_until_settled();
        self.vm.pinned.pop();
        match jobs {
            Ok(()) => Ok(value),
            Err(_) => Err(self.report(ErrorKind::Exception)),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{ErrorKind, HostValue, Outcome, Runtime};

    #[test]
    fn calls_a_global_function_with_host_arguments() {
        let mut rt = Runtime::new();
        rt.run_script("function add(a, b) { return a + b }", "init.js")
            .unwrap();
        let outcome = rt
            .call("add", &[HostValue::Number(2.0), HostValue::Number(40.0)])
            .unwrap();
        assert_eq!(outcome, Outcome::Complete(HostValue::Number(42.0)));
    }

    #[test]
    fn state_persists_between_calls_and_budgets_do_not() {
        let mut rt = Runtime::new();
        rt.run_script(
            "let count = 0; function tick(n) { for (let i = 0; i < n; i++) {} return ++count }",
            "init.js",
        )
        .unwrap();
        rt.limits_mut().fuel = Some(200_000);
        for expected in 1..=3 {
            let outcome = rt.call("tick", &[HostValue::Number(10_000.0)]).unwrap();
            assert_eq!(
                outcome,
                Outcome::Complete(HostValue::Number(expected as f64))
            );
        }
        let spent = rt.call("tick", &[HostValue::Number(1e9)]).unwrap_err();
        assert_eq!(spent.kind, ErrorKind::OutOfFuel);
        // the run that ran out stopped inside its loop, before counting
        let outcome = rt.call("tick", &[HostValue::Number(1.0)]).unwrap();
        assert_eq!(outcome, Outcome::Complete(HostValue::Number(4.0)));
    }

    #[test]
    fn an_async_function_suspends_on_the_host_and_resumes() {
        let mut rt = Runtime::new();
        rt.register_async("lookup");
        rt.run_script(
            "async function handle(x) { return (await lookup(x)) + 1 }",
            "init.js",
        )
        .unwrap();
        let Outcome::Suspended(calls) = rt.call("handle", &[HostValue::from("k")]).unwrap() else {
            panic!("expected a host call");
        };
        assert_eq!(calls[0].args, vec![HostValue::from("k")]);
        let done = rt.resume(calls[0].id, Ok(HostValue::Number(41.0))).unwrap();
        assert_eq!(done, Outcome::Complete(HostValue::Number(42.0)));
    }

    #[test]
    fn a_throw_is_an_exception_report_and_the_runtime_goes_on() {
        let mut rt = Runtime::new();
        rt.run_script(
            "function check(x) { if (x < 0) throw new RangeError('negative'); return x }",
            "init.js",
        )
        .unwrap();
        let err = rt.call("check", &[HostValue::Number(-1.0)]).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Exception);
        assert_eq!(err.summary, "RangeError: negative");
        let ok = rt.call("check", &[HostValue::Number(3.0)]).unwrap();
        assert_eq!(ok, Outcome::Complete(HostValue::Number(3.0)));
    }

    #[test]
    fn a_missing_or_uncallable_global_is_a_host_error() {
        let mut rt = Runtime::new();
        rt.run_script("var notAFunction = 1", "init.js").unwrap();
        for name in ["missing", "notAFunction"] {
            let err = rt.call(name, &[]).unwrap_err();
            assert_eq!(err.kind, ErrorKind::Host);
            assert_eq!(
                err.summary,
                format!("the guest has no global function {name}")
            );
        }
    }
}
