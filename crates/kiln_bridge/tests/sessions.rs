//! Sessions as a binding drives them, on a worker thread and in a worker process.

use kiln::{HostError, HostReply, HostValue, PendingCall};
use kiln_bridge::protocol::{Capability, Failure, Limits, Load, Mode, Settings, Start};
use kiln_bridge::{Command, Event, Isolation, Session};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

fn isolations() -> [Isolation; 2] {
    [
        Isolation::Thread,
        Isolation::Process {
            worker: PathBuf::from(env!("CARGO_BIN_EXE_kiln-worker")),
        },
    ]
}

struct Host {
    session: Session,
    events: Receiver<Event>,
}

impl Host {
    fn open(isolation: &Isolation) -> Host {
        let (sender, events) = channel();
        let sink = std::sync::Arc::new(move |bytes: Vec<u8>| {
            let _ = sender.send(Event::decode(&bytes).expect("a well-formed event"));
        });
        Host {
            session: Session::open(isolation, sink).expect("a session"),
            events,
        }
    }

    fn start(
        isolation: &Isolation,
        source: &str,
        settings: Settings,
        caps: &[(&str, Mode)],
    ) -> Host {
        let host = Host::open(isolation);
        host.begin(source, settings, caps);
        host
    }

    /// Send `Start` for `source`, with the input `{ n: 3 }`.
    fn begin(&self, source: &str, settings: Settings, caps: &[(&str, Mode)]) {
        self.send(Command::Start(Box::new(Start {
            source: source.into(),
            filename: "agent.js".into(),
            settings,
            capabilities: capabilities(caps),
            inputs: vec![("input".into(), HostValue::object([("n", 3.into())]))],
        })));
    }

    fn send(&self, command: Command) {
        self.session.send(command).expect("delivered");
    }

    fn next(&self) -> Event {
        self.events
            .recv_timeout(Duration::from_secs(30))
            .expect("an event within 30 s")
    }

    fn suspended(&self) -> Vec<PendingCall> {
        match self.next() {
            Event::Suspended { calls } => calls,
            other => panic!("expected Suspended, got {other:?}"),
        }
    }

    fn failed(&self) -> Failure {
        match self.next() {
            Event::Failed(f) => f,
            other => panic!("expected Failed, got {other:?}"),
        }
    }
}

/// Budgets an endless loop does not exhaust before it is interrupted.
fn endless() -> Settings {
    Settings {
        limits: Limits {
            fuel: Some(u64::MAX >> 12),
            compute_ms: Some(60_000),
            ..Limits::default()
        },
        ..Settings::default()
    }
}

fn capabilities(caps: &[(&str, Mode)]) -> Vec<Capability> {
    caps.iter()
        .map(|&(name, mode)| Capability {
            name: name.into(),
            mode,
        })
        .collect()
}

#[test]
fn synchronous_calls_return_throw_or_defer() {
    for isolation in isolations() {
        let script = "
            let caught;
            try { tools.check(-1) } catch (e) { caught = `${e.name}: ${e.message} (${e.code})` }
            const later = tools.check(2);
            [tools.check(1) + input.n, caught, await later]";
        let host = Host::start(
            &isolation,
            script,
            Settings::default(),
            &[("tools.check", Mode::Call)],
        );
        let Event::Call(call) = host.next() else {
            panic!("a call")
        };
        assert_eq!(call.capability, "tools.check");
        assert_eq!(call.args, vec![HostValue::Number(-1.0)]);
        host.send(Command::Reply(HostReply::Throw(
            HostError::new("negative")
                .with_name("RangeError")
                .with_code("E1"),
        )));
        let Event::Call(deferred) = host.next() else {
            panic!("a call")
        };
        host.send(Command::Reply(HostReply::Defer));
        let Event::Call(_) = host.next() else {
            panic!("a call")
        };
        host.send(Command::Reply(HostReply::Return(10.into())));
        // the deferred call is outstanding; the host already knows it
        let calls = host.suspended();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].id, deferred.id);
        host.send(Command::Answer {
            id: deferred.id,
            result: Ok("late".into()),
        });
        assert_eq!(
            host.next(),
            Event::Complete(HostValue::Array(vec![
                13.into(),
                "RangeError: negative (E1)".into(),
                "late".into()
            ]))
        );
    }
}

#[test]
fn console_lines_arrive_in_order_before_the_result() {
    for isolation in isolations() {
        let settings = Settings {
            console: true,
            ..Settings::default()
        };
        let host = Host::start(
            &isolation,
            "console.log('a', { b: 1 }); console.error('c'); 42",
            settings,
            &[],
        );
        assert_eq!(
            host.next(),
            Event::Console {
                level: kiln::ConsoleLevel::Log,
                text: "a { b: 1 }".into()
            }
        );
        assert_eq!(
            host.next(),
            Event::Console {
                level: kiln::ConsoleLevel::Error,
                text: "c".into()
            }
        );
        assert_eq!(host.next(), Event::Complete(42.into()));
    }
}

#[test]
fn an_endless_loop_is_interrupted() {
    for isolation in isolations() {
        let host = Host::start(&isolation, "while (true) {}", endless(), &[]);
        std::thread::sleep(Duration::from_millis(50));
        host.session.interrupt();
        assert_eq!(host.failed().kind, "Cancelled");
    }
}

#[test]
fn an_interrupt_wakes_a_guest_waiting_in_a_synchronous_call() {
    for isolation in isolations() {
        let host = Host::start(
            &isolation,
            "tools.wait(); 1",
            Settings::default(),
            &[("tools.wait", Mode::Call)],
        );
        let Event::Call(_) = host.next() else {
            panic!("a call")
        };
        host.session.interrupt();
        assert_eq!(host.failed().kind, "Cancelled");
    }
}

#[test]
fn budgets_end_the_session_with_their_kind() {
    let cases = [
        (
            "for (;;) {}",
            Limits {
                fuel: Some(10_000),
                ..Limits::default()
            },
            "OutOfFuel",
        ),
        (
            "const a = []; for (;;) a.push('x'.repeat(1000) + a.length)",
            Limits {
                heap_bytes: Some(8 << 20),
                ..Limits::default()
            },
            "HeapLimit",
        ),
        (
            "function f() { return f() + 1 } f()",
            Limits {
                call_depth: Some(100),
                ..Limits::default()
            },
            "CallDepth",
        ),
        (
            "for (;;) {}",
            Limits {
                compute_ms: Some(20),
                ..Limits::default()
            },
            "ComputeTime",
        ),
        (
            "for (let i = 0; i < 5; i++) tools.noop()",
            Limits {
                host_calls: Some(3),
                ..Limits::default()
            },
            "HostCalls",
        ),
    ];
    for isolation in isolations() {
        for (script, limits, kind) in &cases {
            let settings = Settings {
                limits: limits.clone(),
                ..Settings::default()
            };
            let host = Host::start(&isolation, script, settings, &[("tools.noop", Mode::Call)]);
            let failure = loop {
                match host.next() {
                    Event::Call(_) => {
                        host.send(Command::Reply(HostReply::Return(HostValue::Undefined)))
                    }
                    Event::Failed(f) => break f,
                    other => panic!("{script}: unexpected {other:?}"),
                }
            };
            assert_eq!(&failure.kind, kind, "{script}");
        }
    }
}

#[test]
fn an_uncaught_exception_reports_name_message_and_location() {
    for isolation in isolations() {
        let host = Host::start(
            &isolation,
            "const x = 1;\nnull.boom",
            Settings::default(),
            &[],
        );
        let failure = host.failed();
        assert_eq!(failure.kind, "Exception");
        assert_eq!(failure.name, "TypeError");
        let location = failure.location.expect("a location");
        assert_eq!((location.file.as_str(), location.line), ("agent.js", 2));
        let host = Host::start(&isolation, "return (", Settings::default(), &[]);
        assert_eq!(host.failed().kind, "Syntax");
    }
}

#[test]
fn a_dumped_session_continues_in_another_worker() {
    let key = b"a key of our own".to_vec();
    let script = "const a = await tools.get('a'); const b = await tools.get(a + 'b'); b + '!'";
    let caps = [("tools.get", Mode::Async)];
    for from in isolations() {
        for to in isolations() {
            let host = Host::start(&from, script, Settings::default(), &caps);
            let calls = host.suspended();
            host.send(Command::Answer {
                id: calls[0].id,
                result: Ok("x".into()),
            });
            let second = host.suspended();
            assert_eq!(second[0].args, vec![HostValue::from("xb")]);
            host.send(Command::Dump {
                key: Some(key.clone()),
            });
            let Event::Dumped(Ok(bytes)) = host.next() else {
                panic!("dumped")
            };
            let id = kiln_bridge::snapshot_id(&bytes, Some(&key)).unwrap();
            assert_eq!(id.len(), 32);
            assert_eq!(
                kiln_bridge::snapshot_id(&bytes, Some(b"another key"))
                    .unwrap_err()
                    .kind,
                "Snapshot"
            );
            drop(host);

            let restored = Host::open(&to);
            restored.send(Command::Load(Box::new(Load {
                snapshot: bytes.clone(),
                key: Some(key.clone()),
                settings: Settings::default(),
                capabilities: capabilities(&caps),
            })));
            let calls = restored.suspended();
            assert_eq!(calls, second);
            restored.send(Command::Answer {
                id: calls[0].id,
                result: Ok("done".into()),
            });
            assert_eq!(restored.next(), Event::Complete("done!".into()));

            let mut damaged = bytes.clone();
            let middle = damaged.len() / 2;
            damaged[middle] ^= 1;
            let broken = Host::open(&to);
            broken.send(Command::Load(Box::new(Load {
                snapshot: damaged,
                key: Some(key.clone()),
                settings: Settings::default(),
                capabilities: capabilities(&caps),
            })));
            assert_eq!(broken.failed().kind, "Snapshot");
        }
    }
}

/// A directory of one test's own, removed when it is dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(test: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("kiln-bridge-test-{}-{test}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// A pool of its own: the worker linked under `name`, so that killing the workers
    /// of that name cannot reach those of the tests running beside this one.
    fn pool(&self, name: &str) -> Isolation {
        let worker = self.0.join(name);
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_kiln-worker"), &worker).unwrap();
        Isolation::Process { worker }
    }

    /// A worker binary that is a shell script running `body` (written by a shell, so
    /// that no descriptor of ours has it open for writing when it is started).
    fn script(&self, name: &str, body: &str) -> Isolation {
        let worker = self.0.join(name);
        let written = std::process::Command::new("sh")
            .args([
                "-c",
                "printf '#!/bin/sh\\n%s\\n' \"$1\" > \"$2\" && chmod +x \"$2\"",
            ])
            .args(["sh", body])
            .arg(&worker)
            .status()
            .unwrap();
        assert!(written.success());
        Isolation::Process { worker }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The pids of this test binary's child processes named `name`.
fn workers(name: &str) -> Vec<String> {
    let me = std::process::id().to_string();
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap() {
        // "pid (comm) state ppid ...", or nothing for a process that has just gone
        let stat = std::fs::read_to_string(entry.unwrap().path().join("stat")).unwrap_or_default();
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let ppid = stat[close + 1..].split_whitespace().nth(1);
        if &stat[open + 1..close] == name && ppid == Some(me.as_str()) {
            pids.push(stat[..open].trim().to_string());
        }
    }
    pids
}

/// Send `signal` (`KILL`, `STOP`) to every child process of this test binary named
/// `name` (those there are when it is called, not the ones started because of it);
/// how many.
fn signal_workers(name: &str, signal: &str) -> usize {
    let pids = workers(name);
    if !pids.is_empty() {
        let sent = std::process::Command::new("kill")
            .arg(format!("-{signal}"))
            .args(&pids)
            .status()
            .unwrap();
        assert!(sent.success());
    }
    pids.len()
}

fn kill_workers(name: &str) -> usize {
    signal_workers(name, "KILL")
}

/// The idle workers the pool keeps per worker binary (`MAX_IDLE` in `process.rs`).
const MAX_IDLE: usize = 8;

#[test]
fn a_killed_worker_process_fails_its_session_and_is_replaced() {
    let scratch = Scratch::new("killed");
    let isolation = scratch.pool("kiln-victim");
    let host = Host::start(
        &isolation,
        "tools.pid()",
        Settings::default(),
        &[("tools.pid", Mode::Call)],
    );
    let Event::Call(_) = host.next() else {
        panic!("a call")
    };
    // the worker waits for the reply: kill it
    assert_eq!(kill_workers("kiln-victim"), 1);
    let failure = host.failed();
    assert_eq!(failure.kind, "Engine");
    assert_eq!(
        failure.message,
        "the Kiln worker process running this guest exited (killed by signal 9)"
    );
    assert!(host.session.send(Command::Dump { key: None }).is_err());
    // the pool serves the next session with a fresh worker
    let next = Host::start(&isolation, "6 * 7", Settings::default(), &[]);
    assert_eq!(next.next(), Event::Complete(42.into()));
}

#[test]
fn an_idle_worker_killed_just_before_a_session_costs_it_nothing() {
    let scratch = Scratch::new("idle");
    let isolation = scratch.pool("kiln-idle");
    for round in 0..5 {
        let host = Host::start(&isolation, "input.n * 2", Settings::default(), &[]);
        assert_eq!(host.next(), Event::Complete(6.into()), "round {round}");
        drop(host);
        // the worker goes back to the pool (or is on its way): kill it, lease at once
        assert!(kill_workers("kiln-idle") >= 1);
        let host = Host::start(&isolation, "input.n * 14", Settings::default(), &[]);
        assert_eq!(host.next(), Event::Complete(42.into()), "round {round}");
    }
}

#[test]
fn a_worker_that_dies_before_its_first_event_hands_the_session_to_a_fresh_one() {
    let scratch = Scratch::new("moved");
    let isolation = scratch.pool("kiln-moved");
    // the worker leased for a session dies before its first event: an idle worker is
    // stopped, leased and sent the session's first command, then killed; that command
    // and everything the session is sent afterwards reach the fresh worker, in order
    let leased_then_killed = |first: &dyn Fn(&Host)| {
        let warm = Host::start(&isolation, "0", Settings::default(), &[]);
        assert_eq!(warm.next(), Event::Complete(0.into()));
        drop(warm);
        // idle since the host heard Complete
        assert!(signal_workers("kiln-moved", "STOP") >= 1);
        let host = Host::open(&isolation);
        first(&host);
        assert!(kill_workers("kiln-moved") >= 1);
        host
    };

    let host = leased_then_killed(&|host| host.begin("input.n * 14", Settings::default(), &[]));
    assert_eq!(host.next(), Event::Complete(42.into()));

    // an interrupt sent meanwhile stops the guest on the fresh worker
    let host = leased_then_killed(&|host| host.begin("while (true) {}", endless(), &[]));
    host.session.interrupt();
    assert_eq!(host.failed().kind, "Cancelled");

    // and a close sent meanwhile closes the session there
    let host = leased_then_killed(&|host| {
        host.begin(
            "await tools.get(input.n)",
            Settings::default(),
            &[("tools.get", Mode::Async)],
        )
    });
    host.send(Command::Close);
    let calls = host.suspended();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].args, vec![HostValue::Number(3.0)]);
    assert_eq!(host.next(), Event::Closed);
    assert!(host.session.send(Command::Dump { key: None }).is_err());

    // a snapshot loaded meanwhile is loaded there
    let host = Host::start(
        &isolation,
        "await tools.get('a')",
        Settings::default(),
        &[("tools.get", Mode::Async)],
    );
    let calls = host.suspended();
    host.send(Command::Dump { key: None });
    let Event::Dumped(Ok(snapshot)) = host.next() else {
        panic!("dumped")
    };
    drop(host);
    let restored = leased_then_killed(&|host| {
        host.send(Command::Load(Box::new(Load {
            snapshot: snapshot.clone(),
            key: None,
            settings: Settings::default(),
            capabilities: capabilities(&[("tools.get", Mode::Async)]),
        })))
    });
    assert_eq!(restored.suspended(), calls);
    restored.send(Command::Answer {
        id: calls[0].id,
        result: Ok("moved".into()),
    });
    assert_eq!(restored.next(), Event::Complete("moved".into()));
}

#[test]
fn a_worker_binary_that_always_dies_fails_the_session_naming_its_exit() {
    let scratch = Scratch::new("dies");
    for (name, body, exit) in [
        ("kiln-exits", "exit 3", "exit status 3"),
        ("kiln-killed", "kill -9 $$", "killed by signal 9"),
    ] {
        let isolation = scratch.script(name, body);
        let Isolation::Process { worker } = &isolation else {
            unreachable!()
        };
        let host = Host::start(&isolation, "1", Settings::default(), &[]);
        let failure = host.failed();
        assert_eq!(failure.kind, "Engine");
        assert_eq!(
            failure.message,
            format!(
                "the Kiln worker process running this guest ({}) exited ({exit}) before the \
                 guest produced anything, as did the one it replaced",
                worker.display()
            )
        );
        assert!(host.session.send(Command::Dump { key: None }).is_err());
        assert!(
            host.events
                .recv_timeout(Duration::from_millis(200))
                .is_err()
        );
    }
}

#[test]
fn garbage_commands_do_not_harm_a_worker() {
    assert!(Command::decode(&[99, 1, 2]).is_err());
    for isolation in isolations() {
        // before Start: a reply has no call to go to, a dump nothing to dump, an answer
        // no execution (which ends the session)
        let host = Host::open(&isolation);
        host.send(Command::Reply(HostReply::Return(1.into())));
        host.send(Command::Dump { key: None });
        let Event::Dumped(Err(failure)) = host.next() else {
            panic!("dumped")
        };
        assert_eq!(failure.kind, "Snapshot");
        host.send(Command::Answer {
            id: 1,
            result: Ok(1.into()),
        });
        assert_eq!(host.failed().kind, "Host");
        let host = Host::start(&isolation, "6 * 7", Settings::default(), &[]);
        assert_eq!(host.next(), Event::Complete(42.into()));
    }
}

#[test]
fn encoded_commands_are_delivered_and_malformed_ones_refused() {
    for isolation in isolations() {
        let host = Host::open(&isolation);
        // refused before the start, wherever the guest runs
        assert!(host.session.send_encoded(&[99, 1, 2]).is_err());
        let start = Command::Start(Box::new(Start {
            source: "const x = await tools.get(); x * input.n".into(),
            filename: "agent.js".into(),
            settings: Settings::default(),
            capabilities: capabilities(&[("tools.get", Mode::Async)]),
            inputs: vec![("input".into(), HostValue::object([("n", 3.into())]))],
        }));
        host.session
            .send_encoded(&start.encode())
            .expect("delivered");
        let calls = host.suspended();
        let answer = Command::Answer {
            id: calls[0].id,
            result: Ok(14.into()),
        };
        host.session
            .send_encoded(&answer.encode())
            .expect("delivered");
        assert_eq!(host.next(), Event::Complete(42.into()));

        // after the start, a worker process checks the bytes itself and fails the
        // session; a worker thread's session refuses them here
        let host = Host::start(
            &isolation,
            "await tools.get()",
            Settings::default(),
            &[("tools.get", Mode::Async)],
        );
        host.suspended();
        match host.session.send_encoded(&[99, 1, 2]) {
            Ok(()) => assert_eq!(host.failed().kind, "Engine"),
            Err(e) => assert!(e.0.contains("malformed"), "{e}"),
        }
    }
}

#[test]
fn a_guest_that_computes_long_still_hears_its_host() {
    // a worker process looks at its input while the guest computes: the answers that
    // arrive meanwhile wait, an interrupt does not
    for isolation in isolations() {
        let host = Host::start(
            &isolation,
            "const [a, b] = [tools.get(1), tools.get(2)]; const x = await a;
             let n = 0; for (let i = 0; i < 3e6; i++) n += i % 3;
             [x, await b, n]",
            Settings::default(),
            &[("tools.get", Mode::Async)],
        );
        let calls = host.suspended();
        assert_eq!(calls.len(), 2);
        for call in &calls {
            host.send(Command::Answer {
                id: call.id,
                result: Ok(call.args[0].clone()),
            });
        }
        let mut event = host.next();
        if event == (Event::Suspended { calls: vec![] }) {
            event = host.next();
        }
        assert_eq!(
            event,
            Event::Complete(HostValue::Array(vec![1.into(), 2.into(), 3_000_000.into()]))
        );
    }
}

#[test]
fn sessions_closed_or_dropped_before_they_start_hold_no_worker() {
    let scratch = Scratch::new("unstarted");
    let isolation = scratch.pool("kiln-unstarted");
    for round in 0..40 {
        let host = Host::open(&isolation);
        match round % 3 {
            0 => {
                host.send(Command::Close);
                assert_eq!(host.next(), Event::Closed);
                assert!(host.session.send(Command::Close).is_err());
            }
            // what a binding does when it refuses an input
            1 => {
                host.session.interrupt();
                host.send(Command::Close);
                assert_eq!(host.next(), Event::Closed);
            }
            _ => {}
        }
        drop(host);
        assert!(workers("kiln-unstarted").len() <= MAX_IDLE, "round {round}");
    }
    assert_eq!(workers("kiln-unstarted").len(), 0);
    for _ in 0..3 {
        let host = Host::start(&isolation, "input.n * 14", Settings::default(), &[]);
        assert_eq!(host.next(), Event::Complete(42.into()));
        // after its last event a session refuses commands; its worker is idle again
        assert!(host.session.send(Command::Close).is_err());
    }
    assert_eq!(workers("kiln-unstarted").len(), 1);
}

#[test]
fn a_session_dropped_while_its_guest_runs_or_waits_stops_it_and_frees_its_worker() {
    let scratch = Scratch::new("busy");
    let busy = scratch.pool("kiln-busy");
    let waits = [("tools.wait", Mode::Call)];
    for isolation in [Isolation::Thread, busy] {
        for (source, settings, caps) in [
            ("while (true) {}", endless(), &[][..]),
            ("tools.wait(); 1", Settings::default(), &waits[..]),
        ] {
            let host = Host::start(&isolation, source, settings, caps);
            if !caps.is_empty() {
                let Event::Call(_) = host.next() else {
                    panic!("a call")
                };
            }
            // the host goes; the sink it gave still hears how the guest ended
            let Host { session, events } = host;
            drop(session);
            let ended = events.recv_timeout(Duration::from_secs(30));
            assert!(
                matches!(&ended, Ok(Event::Failed(f)) if f.kind == "Cancelled"),
                "{source}: {ended:?}"
            );
            let next = Host::start(&isolation, "input.n * 14", Settings::default(), &[]);
            assert_eq!(next.next(), Event::Complete(42.into()));
            if let Isolation::Process { .. } = isolation {
                // the same worker served both
                assert_eq!(workers("kiln-busy").len(), 1, "{source}");
            }
        }
    }
}

#[test]
fn answers_that_arrive_together_are_applied_together() {
    for isolation in isolations() {
        // the guest makes 50 asynchronous calls (ids 1 to 50), then waits in a
        // synchronous one while the host sends all 50 answers
        let script = "const all = Promise.all(Array.from({ length: 50 }, (_, i) => tools.get(i)));
                      tools.hold();
                      (await all).reduce((a, b) => a + b, 0)";
        let host = Host::start(
            &isolation,
            script,
            Settings::default(),
            &[("tools.get", Mode::Async), ("tools.hold", Mode::Call)],
        );
        let Event::Call(hold) = host.next() else {
            panic!("a call")
        };
        assert_eq!(hold.id, 51);
        for id in 1..=50 {
            host.send(Command::Answer {
                id,
                result: Ok(HostValue::Number(id as f64)),
            });
        }
        host.send(Command::Reply(HostReply::Return(HostValue::Undefined)));
        assert_eq!(host.suspended().len(), 50);
        // one step for the 50 answers: no Suspended event between them
        assert_eq!(host.next(), Event::Complete(1275.into()));
    }
}

/// A guest that makes three asynchronous calls, logs each settlement as it happens, then
/// waits in a synchronous call (`tools.hold`) while the host sends its answers.
const THREE_CALLS: &str = "const log = [];
    const calls = [1, 2, 3].map(n => tools.get(n).then(v => log.push(`${n}=${v}`), e => log.push(`${n}!${e.message}`)));
    tools.hold();
    await Promise.all(calls);
    log.join(' ')";

fn three_calls(isolation: &Isolation) -> Host {
    let host = Host::start(
        isolation,
        THREE_CALLS,
        Settings::default(),
        &[("tools.get", Mode::Async), ("tools.hold", Mode::Call)],
    );
    let Event::Call(hold) = host.next() else {
        panic!("a call")
    };
    assert_eq!(hold.id, 4);
    host
}

#[test]
fn a_batch_of_answers_settles_the_calls_in_the_order_the_host_sent_them() {
    for isolation in isolations() {
        let host = three_calls(&isolation);
        host.send(Command::Answer {
            id: 3,
            result: Ok("c".into()),
        });
        host.send(Command::Answer {
            id: 1,
            result: Err(HostError::new("no a")),
        });
        host.send(Command::Answer {
            id: 2,
            result: Ok("b".into()),
        });
        host.send(Command::Reply(HostReply::Return(HostValue::Undefined)));
        let calls: Vec<_> = host.suspended().iter().map(|c| c.id).collect();
        assert_eq!(calls, [1, 2, 3]);
        assert_eq!(host.next(), Event::Complete("3=c 1!no a 2=b".into()));
    }
}

#[test]
fn a_batch_that_answers_a_call_not_outstanding_fails_with_kind_host() {
    for isolation in isolations() {
        let host = three_calls(&isolation);
        host.send(Command::Answer {
            id: 1,
            result: Ok("a".into()),
        });
        host.send(Command::Answer {
            id: 99,
            result: Ok("nobody asked".into()),
        });
        host.send(Command::Reply(HostReply::Return(HostValue::Undefined)));
        assert_eq!(host.suspended().len(), 3);
        assert_eq!(host.failed().kind, "Host");
    }
}

#[test]
fn a_dump_ends_a_batch_of_answers_the_answers_after_it_wait() {
    for isolation in isolations() {
        let host = three_calls(&isolation);
        for (id, value) in [(2, "b"), (1, "a")] {
            host.send(Command::Answer {
                id,
                result: Ok(value.into()),
            });
        }
        host.send(Command::Dump { key: None });
        host.send(Command::Answer {
            id: 3,
            result: Ok("c".into()),
        });
        host.send(Command::Reply(HostReply::Return(HostValue::Undefined)));
        assert_eq!(host.suspended().len(), 3);
        // the two answers before the dump are one step, with nothing new to report
        assert_eq!(host.suspended(), []);
        let Event::Dumped(Ok(bytes)) = host.next() else {
            panic!("dumped")
        };
        assert_eq!(host.next(), Event::Complete("2=b 1=a 3=c".into()));

        // the snapshot holds the two answers, and waits for the third
        let restored = Host::open(&isolation);
        restored.send(Command::Load(Box::new(Load {
            snapshot: bytes,
            key: None,
            settings: Settings::default(),
            capabilities: capabilities(&[("tools.get", Mode::Async), ("tools.hold", Mode::Call)]),
        })));
        let calls: Vec<_> = restored.suspended().iter().map(|c| c.id).collect();
        assert_eq!(calls, [3]);
        restored.send(Command::Answer {
            id: 3,
            result: Ok("z".into()),
        });
        assert_eq!(restored.next(), Event::Complete("2=b 1=a 3=z".into()));
    }
}

/// THREE_CALLS without the synchronous call: the guest rests, waiting for its answers.
const THREE_CALLS_WAITING: &str = "const log = [];
    const calls = [1, 2, 3].map(n => tools.get(n).then(v => log.push(`${n}=${v}`), e => log.push(`${n}!${e.message}`)));
    await Promise.all(calls);
    log.join(' ')";

/// A session of THREE_CALLS_WAITING, waiting for calls 1, 2 and 3.
fn three_calls_waiting(isolation: &Isolation) -> Host {
    let host = Host::start(
        isolation,
        THREE_CALLS_WAITING,
        Settings::default(),
        &[("tools.get", Mode::Async)],
    );
    let calls: Vec<_> = host.suspended().iter().map(|c| c.id).collect();
    assert_eq!(calls, [1, 2, 3]);
    host
}

#[test]
fn one_answers_command_is_one_step_that_settles_the_calls_in_its_order() {
    for isolation in isolations() {
        let host = three_calls_waiting(&isolation);
        host.send(Command::Answers(vec![
            (3, Ok("c".into())),
            (1, Err(HostError::new("no a"))),
            (2, Ok("b".into())),
        ]));
        // one step: no Suspended between the answers, whatever the timing
        assert_eq!(host.next(), Event::Complete("3=c 1!no a 2=b".into()));
    }
}

#[test]
fn answers_commands_that_arrive_together_are_one_step() {
    for isolation in isolations() {
        let host = three_calls(&isolation);
        host.send(Command::Answers(vec![
            (2, Ok("b".into())),
            (3, Ok("c".into())),
        ]));
        host.send(Command::Answers(vec![(1, Ok("a".into()))]));
        host.send(Command::Reply(HostReply::Return(HostValue::Undefined)));
        assert_eq!(host.suspended().len(), 3);
        // both commands wait while the guest is in tools.hold: one step settles all
        // three, in the order sent
        assert_eq!(host.next(), Event::Complete("2=b 3=c 1=a".into()));
    }
}

#[test]
fn an_answers_command_before_the_start_fails_the_session() {
    for isolation in isolations() {
        let host = Host::open(&isolation);
        host.send(Command::Answers(vec![(1, Ok("a".into()))]));
        assert_eq!(
            host.failed(),
            Failure::new("Host", "the session has not started")
        );
    }
}

#[test]
fn an_answers_command_that_answers_a_call_twice_fails_with_kind_host() {
    for isolation in isolations() {
        let host = three_calls_waiting(&isolation);
        host.send(Command::Answers(vec![
            (1, Ok("a".into())),
            (1, Ok("again".into())),
        ]));
        assert_eq!(
            host.failed(),
            Failure::new(
                "Host",
                "host call 1 is answered more than once in one batch"
            )
        );
    }
}

/// Workers start a session on the runtime of an ended one made new again
/// (`Runtime::recycle`): nothing a guest changed is seen by the sessions after it.
#[test]
fn sessions_after_a_guest_that_changed_the_realm_see_it_as_built() {
    let script = "
        const seen = [typeof globalThis.mark, typeof Array.prototype.mark, Object.isFrozen(Math),
                      typeof globalThis.s, typeof tools.other, typeof input.extra].join();
        globalThis.mark = 1; Array.prototype.mark = 1; Object.freeze(Math);
        globalThis.s = Symbol.for('x'); input.extra = 1; tools.other = 1;
        new Promise(() => {}); Promise.resolve().then(() => { globalThis.late = 1 });
        seen";
    for isolation in isolations() {
        for round in 0..6 {
            let host = Host::start(
                &isolation,
                script,
                Settings::default(),
                &[("tools.check", Mode::Call)],
            );
            assert_eq!(
                host.next(),
                Event::Complete("undefined,undefined,false,undefined,undefined,undefined".into()),
                "round {round}"
            );
            drop(host);
            // the worker recycles the ended runtime while it is idle
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
