//! TypeScript files through the `kiln` binary: `kiln run` for `.ts` scripts and `.mts`
//! modules, `kiln sandbox` for a `.ts` agent, and the exit status and message of
//! TypeScript Kiln refuses.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A fresh directory holding `files`.
fn project(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kiln-ts-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (file, source) in files {
        std::fs::write(dir.join(file), source).unwrap();
    }
    dir
}

fn kiln(dir: &Path, args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // the run may end before reading its input
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn kiln_run_strips_the_types_of_a_ts_script() {
    let dir = project(
        "script",
        &[(
            "greet.ts",
            "interface Person { name: string; title?: string }\n\
             function greet(p: Person): string { return `hello ${p.title ?? ''}${p.name}`; }\n\
             const people: Person[] = [{ name: 'ada' }, { name: 'lovelace', title: 'lady ' }];\n\
             for (const p of people) console.log(greet(p!));",
        )],
    );
    let out = kiln(&dir, &["run", "greet.ts"], "");
    assert_eq!(text(&out.stdout), "hello ada\nhello lady lovelace\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn kiln_run_runs_an_mts_file_as_a_module() {
    let dir = project(
        "module",
        &[
            (
                "main.mts",
                "import { total, type Line } from './cart.ts';\n\
                 const lines: Line[] = [{ price: 2, qty: 3 }, { price: 1, qty: 4 }];\n\
                 console.log(await Promise.resolve(total(lines)));",
            ),
            (
                "cart.ts",
                "export interface Line { price: number; qty: number }\n\
                 export const total = (lines: Line[]): number =>\n\
                 \x20 lines.reduce((sum, l) => sum + l.price * l.qty, 0);",
            ),
        ],
    );
    let out = kiln(&dir, &["run", "main.mts"], "");
    assert_eq!(text(&out.stdout), "10\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn kiln_sandbox_runs_a_ts_agent() {
    let dir = project(
        "agent",
        &[(
            "agent.ts",
            "type Weather = { temp: number };\n\
             declare const tools: { weather(city: string): Promise<Weather> };\n\
             const w = await tools.weather('Lyon') as Weather;\n\
             return w.temp satisfies number;",
        )],
    );
    let out = kiln(
        &dir,
        &["sandbox", "agent.ts", "--capability", "tools.weather"],
        "{\"id\":1,\"ok\":{\"temp\":21}}\n",
    );
    assert_eq!(
        text(&out.stdout),
        concat!(
            r#"{"type":"suspended","calls":[{"id":1,"capability":"tools.weather","args":["Lyon"]}]}"#,
            "\n",
            r#"{"type":"complete","value":21}"#,
            "\n"
        )
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn an_enum_is_a_syntax_error_with_its_line_and_column() {
    let dir = project(
        "enum",
        &[
            ("colors.ts", "const a = 1;\n  enum Color { Red }\n"),
            ("view.tsx", "const a = <b>1</b>;\n"),
        ],
    );
    let out = kiln(&dir, &["run", "colors.ts"], "");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "colors.ts:2:3\n  enum Color { Red }\n  ^\n\n\
         SyntaxError: TypeScript enum is not supported: Kiln strips types but does not \
         transform TypeScript (use a union of literals or an object) (colors.ts:2:3)\n"
    );
    // the same refusal from the sandbox, as a JSON line
    let out = kiln(&dir, &["sandbox", "colors.ts"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stdout).contains(r#""kind":"Syntax""#) && text(&out.stdout).contains("2:3"),
        "{}",
        text(&out.stdout)
    );
    let out = kiln(&dir, &["run", "view.tsx"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with(
            "view.tsx:1:1\nconst a = <b>1</b>;\n^\n\nSyntaxError: TSX is not supported"
        ),
        "{}",
        text(&out.stderr)
    );
}
