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
        host.send(Command::Start(Box::new(Start {
            source: source.into(),
            filename: "agent.js".into(),
            settings,
            capabilities: capabilities(caps),
            inputs: vec![("input".into(), HostValue::object([("n", 3.into())]))],
        })));
        host
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
        let settings = Settings {
            limits: Limits {
                fuel: Some(u64::MAX >> 12),
                compute_ms: Some(60_000),
                ..Limits::default()
            },
            ..Settings::default()
        };
        let host = Host::start(&isolation, "while (true) {}", settings, &[]);
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

#[test]
fn a_killed_worker_process_fails_its_session_and_is_replaced() {
    // a pool of its own (a copy of the worker under another name), so that the kill
    // below cannot reach the workers of the tests running beside this one
    let dir = std::env::temp_dir().join(format!("kiln-bridge-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let worker = dir.join("kiln-victim");
    std::fs::copy(env!("CARGO_BIN_EXE_kiln-worker"), &worker).unwrap();
    let isolation = Isolation::Process { worker };
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
    let me = std::process::id();
    let mut killed = 0;
    for task in std::fs::read_dir(format!("/proc/{me}/task")).unwrap() {
        let children =
            std::fs::read_to_string(task.unwrap().path().join("children")).unwrap_or_default();
        for pid in children.split_whitespace() {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            if comm.trim() == "kiln-victim" {
                std::process::Command::new("kill")
                    .args(["-9", pid])
                    .status()
                    .unwrap();
                killed += 1;
            }
        }
    }
    assert_eq!(killed, 1);
    let failure = host.failed();
    assert_eq!(failure.kind, "Engine");
    assert!(
        failure.message.contains("killed by signal 9"),
        "{}",
        failure.message
    );
    assert!(host.session.send(Command::Dump { key: None }).is_err());
    // the pool serves the next session with a fresh worker
    let next = Host::start(&isolation, "6 * 7", Settings::default(), &[]);
    assert_eq!(next.next(), Event::Complete(42.into()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn garbage_commands_do_not_harm_a_worker() {
    assert!(Command::decode(&[99, 1, 2]).is_err());
    let host = Host::open(&Isolation::Thread);
    host.send(Command::Answer {
        id: 1,
        result: Ok(1.into()),
    });
    assert_eq!(host.failed().kind, "Host");
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
