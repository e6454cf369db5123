//! `Date` ([spec](https://tc39.es/ecma262/#sec-date-objects)).
//!
//! A Date object is `ObjectKind::Date(time value)`: milliseconds since the
//! epoch, or NaN. The local time zone is UTC (offset 0, no daylight saving),
//! so LocalTime and UTC are the identity and `getTimezoneOffset` is 0; the
//! "local" getters and setters share the UTC code paths. The clock is read
//! through [`now`] alone, so a host can substitute a deterministic one.

use super::{define_symbol_method, make_constructor};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::convert::Hint;
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, NativeFn, ObjectKind, PropertyKey};
use crate::value::Value;

const MS_PER_SECOND: f64 = 1000.0;
const MS_PER_MINUTE: f64 = 60_000.0;
const MS_PER_HOUR: f64 = 3_600_000.0;
const MS_PER_DAY: f64 = 86_400_000.0;
/// The local time zone's offset from UTC in milliseconds (Kiln's local time is UTC).
const LOCAL_OFFSET: f64 = 0.0;

const WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// The current time value: the one place the clock is read.
pub fn now(vm: &Vm) -> f64 {
    if let Some(clock) = &vm.clock {
        return clock();
    }
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_millis() as f64,
        Err(e) => -(e.duration().as_millis() as f64),
    }
}

// ---- time arithmetic ([spec](https://tc39.es/ecma262/#sec-time-values-and-time-range)) ----

fn day(t: f64) -> f64 {
    (t / MS_PER_DAY).floor()
}

fn time_within_day(t: f64) -> f64 {
    t.rem_euclid(MS_PER_DAY) + 0.0
}

/// Days from 1970-01-01 to the first day of `year` (any finite year).
fn day_from_year(y: f64) -> f64 {
    365.0 * (y - 1970.0) + ((y - 1969.0) / 4.0).floor() - ((y - 1901.0) / 100.0).floor()
        + ((y - 1601.0) / 400.0).floor()
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// Days before the first of month `m` (0-based) in a year.
fn days_before_month(m: usize, leap: bool) -> f64 {
    const CUMULATIVE: [f64; 12] = [
        0.0, 31.0, 59.0, 90.0, 120.0, 151.0, 181.0, 212.0, 243.0, 273.0, 304.0, 334.0,
    ];
    CUMULATIVE[m.min(11)] + if leap && m >= 2 { 1.0 } else { 0.0 }
}

fn days_in_month(y: i64, m: usize) -> u32 {
    match m {
        1 if is_leap(y) => 29,
        1 => 28,
        3 | 5 | 8 | 10 => 30,
        _ => 31,
    }
}

/// (year, month 0-11, date 1-31) of a finite time value.
fn year_month_date(t: f64) -> (i64, usize, u32) {
    // civil_from_days (H. Hinnant), exact for every time value in range.
    let z = day(t) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as usize;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m - 1, d)
}

fn year_from_time(t: f64) -> f64 {
    year_month_date(t).0 as f64
}
fn month_from_time(t: f64) -> f64 {
    year_month_date(t).1 as f64
}
fn date_from_time(t: f64) -> f64 {
    year_month_date(t).2 as f64
}
fn week_day(t: f64) -> f64 {
    (day(t) + 4.0).rem_euclid(7.0) + 0.0
}
fn hour_from_time(t: f64) -> f64 {
    (t / MS_PER_HOUR).floor().rem_euclid(24.0) + 0.0
}
fn min_from_time(t: f64) -> f64 {
    (t / MS_PER_MINUTE).floor().rem_euclid(60.0) + 0.0
}
fn sec_from_time(t: f64) -> f64 {
    (t / MS_PER_SECOND).floor().rem_euclid(60.0) + 0.0
}
fn ms_from_time(t: f64) -> f64 {
    t.rem_euclid(MS_PER_SECOND) + 0.0
}

/// ToIntegerOrInfinity of a number.
fn integer(n: f64) -> f64 {
    crate::interpreter::convert::f64_to_integer(n)
}

/// [MakeTime](https://tc39.es/ecma262/#sec-maketime)
fn make_time(hour: f64, min: f64, sec: f64, ms: f64) -> f64 {
    if !(hour.is_finite() && min.is_finite() && sec.is_finite() && ms.is_finite()) {
        return f64::NAN;
    }
    integer(hour) * MS_PER_HOUR
        + integer(min) * MS_PER_MINUTE
        + integer(sec) * MS_PER_SECOND
        + integer(ms)
}

/// [MakeDay](https://tc39.es/ecma262/#sec-makeday)
fn make_day(year: f64, month: f64, date: f64) -> f64 {
    if !(year.is_finite() && month.is_finite() && date.is_finite()) {
        return f64::NAN;
    }
    let (y, m, dt) = (integer(year), integer(month), integer(date));
    let ym = y + (m / 12.0).floor();
    if !ym.is_finite() || ym.abs() > 1e9 {
        return f64::NAN;
    }
    let mn = m.rem_euclid(12.0) as usize;
    let leap = is_leap(ym as i64);
    day_from_year(ym) + days_before_month(mn, leap) + dt - 1.0
}

/// [MakeDate](https://tc39.es/ecma262/#sec-makedate)
fn make_date(day: f64, time: f64) -> f64 {
    if !day.is_finite() || !time.is_finite() {
        return f64::NAN;
    }
    let tv = day * MS_PER_DAY + time;
    if tv.is_finite() { tv } else { f64::NAN }
}

/// [MakeFullYear](https://tc39.es/ecma262/#sec-makefullyear)
fn make_full_year(year: f64) -> f64 {
    if year.is_nan() {
        return f64::NAN;
    }
    let t = integer(year);
    if (0.0..=99.0).contains(&t) {
        1900.0 + t
    } else {
        year
    }
}

/// [TimeClip](https://tc39.es/ecma262/#sec-timeclip)
pub(crate) fn time_clip(t: f64) -> f64 {
    if !t.is_finite() || t.abs() > 8.64e15 {
        return f64::NAN;
    }
    integer(t)
}

fn local_time(t: f64) -> f64 {
    t + LOCAL_OFFSET
}

fn utc(t: f64) -> f64 {
    t - LOCAL_OFFSET
}

// ---- formatting ----

fn year_text(y: i64) -> String {
    if y >= 0 {
        format!("{y:04}")
    } else {
        format!("-{:04}", -y)
    }
}

/// [DateString](https://tc39.es/ecma262/#sec-datestring): `Tue Jan 02 2024`
fn date_string(t: f64) -> String {
    let (y, m, d) = year_month_date(t);
    format!(
        "{} {} {:02} {}",
        WEEKDAYS[week_day(t) as usize % 7],
        MONTHS[m],
        d,
        year_text(y)
    )
}

/// [TimeString](https://tc39.es/ecma262/#sec-timestring): `03:04:05 GMT`
fn time_string(t: f64) -> String {
    format!(
        "{:02}:{:02}:{:02} GMT",
        hour_from_time(t),
        min_from_time(t),
        sec_from_time(t)
    )
}

/// [TimeZoneString](https://tc39.es/ecma262/#sec-timezoneestring)
fn time_zone_string(_tv: f64) -> String {
    "+0000 (Coordinated Universal Time)".into()
}

/// [ToDateString](https://tc39.es/ecma262/#sec-todatestring)
fn to_date_string(tv: f64) -> String {
    if tv.is_nan() {
        return "Invalid Date".into();
    }
    let t = local_time(tv);
    format!(
        "{} {}{}",
        date_string(t),
        time_string(t),
        time_zone_string(tv)
    )
}

/// `Date.prototype.toISOString` text for a time value, or None if it is invalid.
pub fn to_iso_string(t: f64) -> Option<String> {
    if !t.is_finite() {
        return None;
    }
    let (y, m, d) = year_month_date(t);
    let year = if (0..=9999).contains(&y) {
        format!("{y:04}")
    } else if y < 0 {
        format!("-{:06}", -y)
    } else {
        format!("+{y:06}")
    };
    Some(format!(
        "{}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        year,
        m + 1,
        d,
        hour_from_time(t),
        min_from_time(t),
        sec_from_time(t),
        ms_from_time(t)
    ))
}

fn utc_string(tv: f64) -> String {
    if tv.is_nan() {
        return "Invalid Date".into();
    }
    let (y, m, d) = year_month_date(tv);
    format!(
        "{}, {:02} {} {} {}",
        WEEKDAYS[week_day(tv) as usize % 7],
        d,
        MONTHS[m],
        year_text(y),
        time_string(tv)
    )
}

// ---- parsing ----

/// [Date.parse](https://tc39.es/ecma262/#sec-date.parse) of a string: the Date Time String
/// Format, else the formats `toString` and `toUTCString` produce (and close variants).
pub fn parse_date(s: &str) -> f64 {
    let s = s.trim();
    if let Some(t) = parse_iso(s) {
        return t;
    }
    parse_fallback(s).unwrap_or(f64::NAN)
}

/// A cursor over ASCII text.
struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    /// Exactly `n` digits.
    fn digits(&mut self, n: usize) -> Option<i64> {
        let slice = self.b.get(self.i..self.i + n)?;
        if !slice.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.i += n;
        Some(slice.iter().fold(0, |a, &d| a * 10 + (d - b'0') as i64))
    }
    fn done(&self) -> bool {
        self.i >= self.b.len()
    }
}

/// [Date Time String Format](https://tc39.es/ecma262/#sec-date-time-string-format), with
/// expanded years. Date-only forms are UTC; date-time forms without an offset are local time.
fn parse_iso(s: &str) -> Option<f64> {
    let mut c = Cursor {
        b: s.as_bytes(),
        i: 0,
    };
    let year = match c.peek()? {
        b'+' | b'-' => {
            let negative = c.peek() == Some(b'-');
            c.i += 1;
            let y = c.digits(6)?;
            if negative && y == 0 {
                return None;
            }
            if negative { -y } else { y }
        }
        _ => c.digits(4)?,
    };
    let (mut month, mut dayn) = (1, 1);
    if c.eat(b'-') {
        month = c.digits(2)?;
        if c.eat(b'-') {
            dayn = c.digits(2)?;
        }
    }
    if !(1..=12).contains(&month)
        || dayn < 1
        || dayn > days_in_month(year, month as usize - 1) as i64
    {
        return None;
    }
    let (mut h, mut mi, mut sec, mut ms) = (0, 0, 0, 0.0);
    let mut offset: Option<f64> = None;
    let date_only = c.done();
    if !date_only {
        if !c.eat(b'T') && !c.eat(b't') {
            return None;
        }
        h = c.digits(2)?;
        if !c.eat(b':') {
            return None;
        }
        mi = c.digits(2)?;
        if c.eat(b':') {
            sec = c.digits(2)?;
            if c.eat(b'.') {
                let start = c.i;
                while c.peek().is_some_and(|d| d.is_ascii_digit()) {
                    c.i += 1;
                }
                let frac = &s[start..c.i];
                if frac.is_empty() {
                    return None;
                }
                let padded = format!("{:0<3}", &frac[..frac.len().min(3)]);
                ms = padded.parse::<f64>().ok()?;
            }
        }
        if h > 24 || mi > 59 || sec > 59 || (h == 24 && (mi != 0 || sec != 0 || ms != 0.0)) {
            return None;
        }
        match c.peek() {
            Some(b'Z') | Some(b'z') => {
                c.i += 1;
                offset = Some(0.0);
            }
            Some(sign @ (b'+' | b'-')) => {
                c.i += 1;
                let oh = c.digits(2)?;
                if !c.eat(b':') {
                    return None;
                }
                let om = c.digits(2)?;
                if oh > 23 || om > 59 {
                    return None;
                }
                let o = (oh * 60 + om) as f64 * MS_PER_MINUTE;
                offset = Some(if sign == b'-' { -o } else { o });
            }
            _ => {}
        }
    }
    if !c.done() {
        return None;
    }
    let d = make_day(year as f64, (month - 1) as f64, dayn as f64);
    let t = make_date(d, make_time(h as f64, mi as f64, sec as f64, ms));
    let t = match offset {
        Some(o) => t - o,
        None if date_only => t,
        None => utc(t),
    };
    Some(time_clip(t))
}

/// The `toString` / `toUTCString` shapes: `Tue Jan 02 2024 03:04:05 GMT+0100 (Zone)`,
/// `Tue, 02 Jan 2024 03:04:05 GMT`, `Jan 2 2024`, `1/2/2024 10:00`.
fn parse_fallback(s: &str) -> Option<f64> {
    // Drop parenthesised comments (the zone name).
    let mut text = String::with_capacity(s.len());
    let mut depth = 0;
    for ch in s.chars() {
        match ch {
            '(' => depth += 1,
            ')' if depth > 0 => depth -= 1,
            _ if depth == 0 => text.push(ch),
            _ => {}
        }
    }
    let mut month: Option<i64> = None;
    let mut numbers: Vec<(i64, bool)> = Vec::new(); // (value, had a sign)
    let mut time: Option<(i64, i64, i64, f64)> = None;
    let mut offset: Option<f64> = None;
    let mut slash_date: Option<(i64, i64, i64)> = None;
    for token in text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
    {
        let lower = token.to_ascii_lowercase();
        if lower.chars().all(|c| c.is_ascii_alphabetic()) {
            if let Some(i) = MONTHS
                .iter()
                .position(|m| lower.len() >= 3 && m.to_ascii_lowercase() == lower[..3])
            {
                if month.is_some() {
                    return None;
                }
                month = Some(i as i64);
                continue;
            }
            if WEEKDAYS
                .iter()
                .any(|w| lower.len() >= 3 && w.to_ascii_lowercase() == lower[..3])
            {
                continue;
            }
            match lower.as_str() {
                "gmt" | "utc" | "ut" | "z" => {
                    offset.get_or_insert(0.0);
                    continue;
                }
                "am" | "pm" => {
                    let (h, m, sec, ms) = time?;
                    if !(1..=12).contains(&h) {
                        return None;
                    }
                    let h = (h % 12) + if lower == "pm" { 12 } else { 0 };
                    time = Some((h, m, sec, ms));
                    continue;
                }
                _ => return None,
            }
        }
        let (zone, rest) = if let Some(r) = lower.strip_prefix("gmt").or(lower.strip_prefix("utc"))
        {
            (true, r)
        } else {
            (false, lower.as_str())
        };
        if zone
            || ((rest.starts_with('+') || rest.starts_with('-'))
                && time.is_some()
                && rest.len() >= 3)
        {
            if rest.is_empty() {
                offset = Some(0.0);
                continue;
            }
            let sign = match rest.as_bytes()[0] {
                b'+' => 1.0,
                b'-' => -1.0,
                _ => return None,
            };
            let digits: String = rest[1..].chars().filter(|c| *c != ':').collect();
            if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let (oh, om) = match digits.len() {
                1 | 2 => (digits.parse::<i64>().ok()?, 0),
                4 => (
                    digits[..2].parse::<i64>().ok()?,
                    digits[2..].parse::<i64>().ok()?,
                ),
                _ => return None,
            };
            offset = Some(sign * (oh * 60 + om) as f64 * MS_PER_MINUTE);
            continue;
        }
        if rest.contains(':') {
            let mut parts = rest.split(':');
            let h = parts.next()?.parse::<i64>().ok()?;
            let m = parts.next()?.parse::<i64>().ok()?;
            let (sec, ms) = match parts.next() {
                Some(p) => {
                    let mut sp = p.splitn(2, '.');
                    let sec = sp.next()?.parse::<i64>().ok()?;
                    let ms = match sp.next() {
                        Some(f) if !f.is_empty() && f.chars().all(|c| c.is_ascii_digit()) => {
                            format!("{:0<3}", &f[..f.len().min(3)])
                                .parse::<f64>()
                                .ok()?
                        }
                        Some(_) => return None,
                        None => 0.0,
                    };
                    (sec, ms)
                }
                None => (0, 0.0),
            };
            if parts.next().is_some() || h > 24 || m > 59 || sec > 59 {
                return None;
            }
            time = Some((h, m, sec, ms));
            continue;
        }
        if rest.contains('/') {
            let p: Vec<&str> = rest.split('/').collect();
            if p.len() != 3 {
                return None;
            }
            let mo = p[0].parse::<i64>().ok()?;
            let d = p[1].parse::<i64>().ok()?;
            let y = p[2].parse::<i64>().ok()?;
            slash_date = Some((y, mo - 1, d));
            continue;
        }
        let signed = rest.starts_with('-') || rest.starts_with('+');
        let n = rest.parse::<i64>().ok()?;
        numbers.push((n, signed));
    }
    let (year, mon, dayn) = if let Some(d) = slash_date {
        if month.is_some() || !numbers.is_empty() {
            return None;
        }
        d
    } else {
        let month = month?;
        let [(a, _), (b, _)] = numbers[..] else {
            return None;
        };
        // `Jan 02 2024` has the day first; `02 Jan 2024` too. A year is the number
        // that cannot be a day (or the second one).
        let (d, y) = if a > 31 { (b, a) } else { (a, b) };
        (y, month, d)
    };
    if !(0..12).contains(&mon) || dayn < 1 || dayn > days_in_month(year, mon as usize) as i64 {
        return None;
    }
    let (h, mi, sec, ms) = time.unwrap_or((0, 0, 0, 0.0));
    let d = make_day(year as f64, mon as f64, dayn as f64);
    let t = make_date(d, make_time(h as f64, mi as f64, sec as f64, ms));
    let t = match offset {
        Some(o) => t - o,
        None => utc(t),
    };
    Some(time_clip(t))
}

// ---- the built-ins ----

pub fn init(vm: &mut Vm) {
    let proto = vm
        .heap
        .new_object(Some(vm.intrinsics.object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.date_prototype = proto;
    let ctor = make_constructor(vm, "Date", date_constructor, 7, proto);
    vm.define_native(ctor, "now", date_now, 0);
    vm.define_native(ctor, "parse", date_parse, 1);
    vm.define_native(ctor, "UTC", date_utc, 7);
    let methods: [(&str, NativeFn, u32); 45] = [
        ("getDate", get_date, 0),
        ("getDay", get_day, 0),
        ("getFullYear", get_full_year, 0),
        ("getHours", get_hours, 0),
        ("getMilliseconds", get_milliseconds, 0),
        ("getMinutes", get_minutes, 0),
        ("getMonth", get_month, 0),
        ("getSeconds", get_seconds, 0),
        ("getTime", get_time, 0),
        ("getTimezoneOffset", get_timezone_offset, 0),
        ("getUTCDate", get_date, 0),
        ("getUTCDay", get_day, 0),
        ("getUTCFullYear", get_full_year, 0),
        ("getUTCHours", get_hours, 0),
        ("getUTCMilliseconds", get_milliseconds, 0),
        ("getUTCMinutes", get_minutes, 0),
        ("getUTCMonth", get_month, 0),
        ("getUTCSeconds", get_seconds, 0),
        ("getYear", get_year, 0),
        ("setDate", set_date, 1),
        ("setFullYear", set_full_year, 3),
        ("setHours", set_hours, 4),
        ("setMilliseconds", set_milliseconds, 1),
        ("setMinutes", set_minutes, 3),
        ("setMonth", set_month, 2),
        ("setSeconds", set_seconds, 2),
        ("setTime", set_time, 1),
        ("setUTCDate", set_date, 1),
        ("setUTCFullYear", set_full_year, 3),
        ("setUTCHours", set_hours, 4),
        ("setUTCMilliseconds", set_milliseconds, 1),
        ("setUTCMinutes", set_minutes, 3),
        ("setUTCMonth", set_month, 2),
        ("setUTCSeconds", set_seconds, 2),
        ("setYear", set_year, 1),
        ("toDateString", to_date_string_method, 0),
        ("toISOString", to_iso_string_method, 0),
        ("toJSON", to_json, 1),
        ("toLocaleDateString", to_date_string_method, 0),
        ("toLocaleString", to_string, 0),
        ("toLocaleTimeString", to_time_string, 0),
        ("toString", to_string, 0),
        ("toTimeString", to_time_string, 0),
        ("toUTCString", to_utc_string, 0),
        ("valueOf", get_time, 0),
    ];
    for (name, f, len) in methods {
        vm.define_native(proto, name, f, len);
    }
    // Annex B: toGMTString is the same function object as toUTCString.
    let utc_key = vm.key("toUTCString");
    if let Some(p) = vm.heap.own_property(proto, utc_key) {
        let gmt_key = vm.key("toGMTString");
        vm.define_builtin(proto, gmt_key, p.value, Attrs::HIDDEN);
    }
    define_symbol_method(
        vm,
        proto,
        vm.symbols.to_primitive,
        "[Symbol.toPrimitive]",
        to_primitive,
        1,
    );
    // Symbol.toPrimitive is not writable.
    let key = PropertyKey::Symbol(vm.symbols.to_primitive);
    if let Some(p) = vm.heap.own_property(proto, key) {
        vm.define_builtin(proto, key, p.value, Attrs::CONFIGURABLE_ONLY);
    }
}

/// [Date](https://tc39.es/ecma262/#sec-date)
fn date_constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    // 1. Called as a function: the current time as a string.
    if args.new_target.is_undefined() {
        let s = to_date_string(now(vm));
        return Ok(vm.string_value(&s));
    }
    let tv = match args.count {
        // 3. No arguments: now.
        0 => now(vm),
        // 4. One argument: a Date's value, a string to parse, or a number.
        1 => {
            let value = vm.arg(args, 0);
            match value.as_object().map(|o| &vm.heap.object(o).kind) {
                Some(ObjectKind::Date(t)) => *t,
                _ => {
                    let v = vm.to_primitive(value, Hint::Default)?;
                    if let Some(s) = v.as_string() {
                        let text = vm.heap.string_to_rust(s);
                        parse_date(&text)
                    } else {
                        vm.to_number(v)?
                    }
                }
            }
        }
        // 5. Components in local time.
        _ => {
            let t = components_to_time(vm, args)?;
            utc(t)
        }
    };
    let dv = time_clip(tv);
    // 6. Let O be ? OrdinaryCreateFromConstructor(NewTarget, "%Date.prototype%", ...).
    let proto = vm.prototype_from_constructor(args.new_target, |i| i.date_prototype)?;
    Ok(Value::object(
        vm.heap.new_object(Some(proto), ObjectKind::Date(dv)),
    ))
}

/// The time of (year, month[, date, hours, minutes, seconds, ms]) arguments, before UTC().
fn components_to_time(vm: &mut Vm, args: Args) -> JsResult<f64> {
    let mut v = [f64::NAN, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0];
    for (i, slot) in v.iter_mut().enumerate() {
        if i == 0 || i < args.count as usize {
            *slot = vm.to_number(vm.arg(args, i))?;
        }
    }
    let yr = make_full_year(v[0]);
    Ok(make_date(
        make_day(yr, v[1], v[2]),
        make_time(v[3], v[4], v[5], v[6]),
    ))
}

/// [Date.now](https://tc39.es/ecma262/#sec-date.now)
fn date_now(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    Ok(Value::number(now(vm)))
}

/// [Date.parse](https://tc39.es/ecma262/#sec-date.parse)
fn date_parse(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let s = vm.to_string(vm.arg(args, 0))?;
    let text = vm.heap.string_to_rust(s);
    Ok(Value::number(parse_date(&text)))
}

/// [Date.UTC](https://tc39.es/ecma262/#sec-date.utc)
fn date_utc(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let t = components_to_time(vm, args)?;
    Ok(Value::number(time_clip(t)))
}

/// [thisTimeValue](https://tc39.es/ecma262/#sec-thistimevalue)
pub(crate) fn this_time_value(vm: &mut Vm, this: Value, method: &str) -> JsResult<(ObjectId, f64)> {
    if let Some(o) = this.as_object()
        && let ObjectKind::Date(t) = vm.heap.object(o).kind
    {
        return Ok((o, t));
    }
    Err(vm.type_error(format!(
        "Date.prototype.{method} called on an object that is not a Date"
    )))
}

/// A getter: `f(LocalTime(t))`, NaN for an invalid date.
fn getter(vm: &mut Vm, this: Value, method: &str, f: fn(f64) -> f64) -> JsResult<Value> {
    let (_, t) = this_time_value(vm, this, method)?;
    if t.is_nan() {
        return Ok(Value::double(f64::NAN));
    }
    Ok(Value::number(f(local_time(t))))
}

fn get_date(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    getter(vm, this, "getDate", date_from_time)
}
fn get_day(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    getter(vm, this, "getDay", week_day)
}
fn get_full_year(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    getter(vm, this, "getFullYear", year_from_time)
}
fn get_hours(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    getter(vm, this, "getHours", hour_from_time)
}
fn get_milliseconds(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    getter(vm, this, "getMilliseconds", ms_from_time)
}
fn get_minutes(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    getter(vm, this, "getMinutes", min_from_time)
}
fn get_month(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    getter(vm, this, "getMonth", month_from_time)
}
fn get_seconds(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    getter(vm, this, "getSeconds", sec_from_time)
}
/// [Date.prototype.getYear](https://tc39.es/ecma262/#sec-date.prototype.getyear) (Annex B)
fn get_year(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    getter(vm, this, "getYear", |t| year_from_time(t) - 1900.0)
}
/// [Date.prototype.getTime](https://tc39.es/ecma262/#sec-date.prototype.gettime) (and valueOf)
fn get_time(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let (_, t) = this_time_value(vm, this, "getTime")?;
    Ok(Value::number(t))
}
/// [Date.prototype.getTimezoneOffset](https://tc39.es/ecma262/#sec-date.prototype.gettimezoneoffset)
fn get_timezone_offset(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let (_, t) = this_time_value(vm, this, "getTimezoneOffset")?;
    if t.is_nan() {
        return Ok(Value::double(f64::NAN));
    }
    Ok(Value::number((t - local_time(t)) / MS_PER_MINUTE))
}

/// Which fields a setter writes: the date fields (year, month, date) or the time fields
/// (hours, minutes, seconds, milliseconds), starting at `first`, at most `count` of them.
#[derive(Clone, Copy)]
enum Fields {
    Date { first: usize, count: usize },
    Time { first: usize, count: usize },
}

/// The setters of [Date.prototype](https://tc39.es/ecma262/#sec-properties-of-the-date-prototype-object):
/// convert the given arguments, then rebuild the time value with the others kept.
fn setter(vm: &mut Vm, this: Value, args: Args, method: &str, fields: Fields) -> JsResult<Value> {
    let (obj, t) = this_time_value(vm, this, method)?;
    let (first, count) = match fields {
        Fields::Date { first, count } | Fields::Time { first, count } => (first, count),
    };
    let mut given = [None; 4];
    for (i, slot) in given.iter_mut().enumerate().take(count) {
        if i == 0 || i < args.count as usize {
            *slot = Some(vm.to_number(vm.arg(args, i))?);
        }
    }
    // setFullYear starts from +0 when the date is invalid; the others stay NaN.
    let t = if t.is_nan() {
        if matches!(fields, Fields::Date { first: 0, .. }) {
            0.0
        } else {
            return Ok(Value::double(f64::NAN));
        }
    } else {
        local_time(t)
    };
    let pick = |i: usize, current: f64| -> f64 {
        if i >= first && i - first < count {
            given[i - first].unwrap_or(current)
        } else {
            current
        }
    };
    let new_date = match fields {
        Fields::Date { .. } => make_date(
            make_day(
                pick(0, year_from_time(t)),
                pick(1, month_from_time(t)),
                pick(2, date_from_time(t)),
            ),
            time_within_day(t),
        ),
        Fields::Time { .. } => make_date(
            day(t),
            make_time(
                pick(0, hour_from_time(t)),
                pick(1, min_from_time(t)),
                pick(2, sec_from_time(t)),
                pick(3, ms_from_time(t)),
            ),
        ),
    };
    let u = time_clip(utc(new_date));
    vm.heap.object_mut(obj).kind = ObjectKind::Date(u);
    Ok(Value::number(u))
}

fn set_date(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    setter(
        vm,
        this,
        args,
        "setDate",
        Fields::Date { first: 2, count: 1 },
    )
}
fn set_full_year(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    setter(
        vm,
        this,
        args,
        "setFullYear",
        Fields::Date { first: 0, count: 3 },
    )
}
fn set_month(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    setter(
        vm,
        this,
        args,
        "setMonth",
        Fields::Date { first: 1, count: 2 },
    )
}
fn set_hours(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    setter(
        vm,
        this,
        args,
        "setHours",
        Fields::Time { first: 0, count: 4 },
    )
}
fn set_minutes(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    setter(
        vm,
        this,
        args,
        "setMinutes",
        Fields::Time { first: 1, count: 3 },
    )
}
fn set_seconds(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    setter(
        vm,
        this,
        args,
        "setSeconds",
        Fields::Time { first: 2, count: 2 },
    )
}
fn set_milliseconds(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    setter(
        vm,
        this,
        args,
        "setMilliseconds",
        Fields::Time { first: 3, count: 1 },
    )
}

/// [Date.prototype.setTime](https://tc39.es/ecma262/#sec-date.prototype.settime)
fn set_time(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let (obj, _) = this_time_value(vm, this, "setTime")?;
    let t = vm.to_number(vm.arg(args, 0))?;
    let v = time_clip(t);
    vm.heap.object_mut(obj).kind = ObjectKind::Date(v);
    Ok(Value::number(v))
}

/// [Date.prototype.setYear](https://tc39.es/ecma262/#sec-date.prototype.setyear) (Annex B)
fn set_year(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let (obj, t) = this_time_value(vm, this, "setYear")?;
    let y = vm.to_number(vm.arg(args, 0))?;
    let t = if t.is_nan() { 0.0 } else { local_time(t) };
    let yyyy = make_full_year(y);
    let d = make_day(yyyy, month_from_time(t), date_from_time(t));
    let date = make_date(d, time_within_day(t));
    let u = time_clip(utc(date));
    vm.heap.object_mut(obj).kind = ObjectKind::Date(u);
    Ok(Value::number(u))
}

/// [Date.prototype.toString](https://tc39.es/ecma262/#sec-date.prototype.tostring)
fn to_string(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let (_, t) = this_time_value(vm, this, "toString")?;
    let s = to_date_string(t);
    Ok(vm.string_value(&s))
}

/// [Date.prototype.toDateString](https://tc39.es/ecma262/#sec-date.prototype.todatestring)
fn to_date_string_method(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let (_, t) = this_time_value(vm, this, "toDateString")?;
    let s = if t.is_nan() {
        "Invalid Date".into()
    } else {
        date_string(local_time(t))
    };
    Ok(vm.string_value(&s))
}

/// [Date.prototype.toTimeString](https://tc39.es/ecma262/#sec-date.prototype.totimestring)
fn to_time_string(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let (_, t) = this_time_value(vm, this, "toTimeString")?;
    let s = if t.is_nan() {
        "Invalid Date".into()
    } else {
        format!("{}{}", time_string(local_time(t)), time_zone_string(t))
    };
    Ok(vm.string_value(&s))
}

/// [Date.prototype.toUTCString](https://tc39.es/ecma262/#sec-date.prototype.toutcstring)
fn to_utc_string(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let (_, t) = this_time_value(vm, this, "toUTCString")?;
    let s = utc_string(t);
    Ok(vm.string_value(&s))
}

/// [Date.prototype.toISOString](https://tc39.es/ecma262/#sec-date.prototype.toisostring)
fn to_iso_string_method(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let (_, t) = this_time_value(vm, this, "toISOString")?;
    match to_iso_string(t) {
        Some(s) => Ok(vm.string_value(&s)),
        None => Err(vm.range_error("Invalid time value")),
    }
}

/// [Date.prototype.toJSON](https://tc39.es/ecma262/#sec-date.prototype.tojson)
fn to_json(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    // 1. Let O be ? ToObject(this value).
    let o = Value::object(vm.to_object(this)?);
    vm.roots.push(o);
    // 2-3. Let tv be ? ToPrimitive(O, number); a non-finite number gives null.
    let tv = vm.to_primitive(o, Hint::Number)?;
    if let Some(n) = tv.as_number()
        && !n.is_finite()
    {
        return Ok(Value::NULL);
    }
    // 4. Return ? Invoke(O, "toISOString").
    let key = vm.key("toISOString");
    let f = vm.get(o, key)?;
    if !vm.is_callable(f) {
        return Err(vm.type_error("toISOString is not a function"));
    }
    vm.call(f, o, &[])
}

/// [Date.prototype[@@toPrimitive]](https://tc39.es/ecma262/#sec-date.prototype-@@toprimitive)
fn to_primitive(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let Some(this) = this.as_object() else {
        return Err(vm.type_error("Date.prototype[Symbol.toPrimitive] called on a non-object"));
    };
    let hint = vm.arg(args, 0).as_string();
    let is = |vm: &mut Vm, atom| hint.is_some_and(|h| vm.heap.string_eq(h, atom));
    let string_first = if is(vm, vm.atoms.string) || is(vm, vm.atoms.default) {
        true
    } else if is(vm, vm.atoms.number) {
        false
    } else {
        return Err(vm.type_error("Invalid hint for Date.prototype[Symbol.toPrimitive]"));
    };
    vm.ordinary_to_primitive(this, string_first)
}
