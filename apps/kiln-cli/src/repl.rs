//! The interactive read-eval-print loop: line editing and history (rustyline),
//! multi-line input for unfinished statements, results printed like other REPLs.

use kiln::Runtime;
use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;
use std::process::ExitCode;

pub fn run(runtime: &mut Runtime) -> ExitCode {
    let Ok(mut editor) = DefaultEditor::new() else {
        eprintln!("kiln: cannot start the line editor");
        return ExitCode::from(1);
    };
    let history =
        std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".kiln_history"));
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    println!(
        "Kiln {} — .exit or Ctrl-D to leave",
        env!("CARGO_PKG_VERSION")
    );
    let mut buffer = String::new();
    loop {
        let prompt = if buffer.is_empty() { "> " } else { "... " };
        match editor.readline(prompt) {
            Ok(line) => {
                if buffer.is_empty() && line.trim() == ".exit" {
                    break;
                }
                buffer.push_str(&line);
                buffer.push('\n');
                if is_incomplete(&buffer) {
                    continue;
                }
                let _ = editor.add_history_entry(buffer.trim_end());
                match runtime.eval(&buffer) {
                    Ok(text) => println!("{text}"),
                    Err(report) => eprintln!("Uncaught {}", report.stack),
                }
                buffer.clear();
            }
            Err(ReadlineError::Interrupted) => {
                if buffer.is_empty() {
                    println!("(To exit, press Ctrl-D or type .exit)");
                }
                buffer.clear();
            }
            Err(_) => break,
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    ExitCode::SUCCESS
}

/// Input that ends inside brackets, a string or a comment waits for more lines.
fn is_incomplete(source: &str) -> bool {
    let mut depth = 0i32;
    let mut chars = source.chars().peekable();
    let mut in_string: Option<char> = None;
    while let Some(c) = chars.next() {
        if let Some(q) = in_string {
            match c {
                '\\' => {
                    chars.next();
                }
                c if c == q => in_string = None,
                '\n' if q != '`' => in_string = None,
                _ => {}
            }
            continue;
        }
        match c {
            '"' | '\'' | '`' => in_string = Some(c),
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut closed = false;
                let mut prev = ' ';
                for c in chars.by_ref() {
                    if prev == '*' && c == '/' {
                        closed = true;
                        break;
                    }
                    prev = c;
                }
                if !closed {
                    return true;
                }
            }
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    depth > 0 || in_string == Some('`')
}

#[cfg(test)]
mod tests {
    use super::is_incomplete;

    #[test]
    fn open_brackets_wait_for_more() {
        assert!(is_incomplete("function f() {\n"));
        assert!(is_incomplete("[1, 2,\n"));
        assert!(is_incomplete("`multi\n"));
        assert!(!is_incomplete("1 + 2\n"));
        assert!(!is_incomplete("'}'\n"));
        assert!(!is_incomplete("f() // {\n"));
    }
}
