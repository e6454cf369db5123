//! Compile errors and the conversion of byte offsets to line and column.

/// A compile-time error: a JavaScript `SyntaxError` with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    pub message: String,
    /// 1-based line
    pub line: u32,
    /// 1-based column, in UTF-16 code units
    pub column: u32,
    /// byte offset into the source
    pub offset: u32,
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "SyntaxError: {} ({}:{})",
            self.message, self.line, self.column
        )
    }
}

impl std::error::Error for CompileError {}

impl CompileError {
    /// An error whose line and column are filled in by [`CompileError::locate`].
    pub(crate) fn new(message: impl Into<String>, offset: u32) -> Self {
        CompileError {
            message: message.into(),
            line: 0,
            column: 0,
            offset,
        }
    }

    pub(crate) fn unsupported(what: &str, offset: u32) -> Self {
        Self::new(format!("not yet supported: {what}"), offset)
    }

    /// Fill in line and column from the byte offset.
    pub(crate) fn locate(mut self, source: &str) -> Self {
        let (line, column) = line_column(source, self.offset as usize);
        self.line = line;
        self.column = column;
        self
    }
}

/// 1-based line and UTF-16 column of a byte offset. Line terminators are the
/// ECMAScript ones: LF, CR, CRLF (one break), U+2028 and U+2029.
pub(crate) fn line_column(source: &str, offset: usize) -> (u32, u32) {
    let mut line = 1u32;
    let mut column = 1u32;
    let mut chars = source.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if i >= offset {
            break;
        }
        match c {
            '\r' => {
                if let Some(&(j, '\n')) = chars.peek()
                    && j < offset
                {
                    chars.next();
                }
                line += 1;
                column = 1;
            }
            '\n' | '\u{2028}' | '\u{2029}' => {
                line += 1;
                column = 1;
            }
            _ => column += c.len_utf16() as u32,
        }
    }
    (line, column)
}
