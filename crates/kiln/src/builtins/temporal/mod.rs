//! `Temporal` ([spec](https://tc39.es/proposal-temporal/)).
//!
//! The date and time arithmetic, calendars, time zones, parsing and formatting
//! are the `temporal_rs` crate's; this module is the binding layer. Each
//! Temporal object is `ObjectKind::Temporal(Box<TemporalValue>)`, holding the
//! temporal_rs value. The natives read their arguments, options bags and
//! property bags in the specification's observable order (`options.rs`), then
//! hand plain Rust values to temporal_rs and map its errors to RangeError or
//! TypeError.
//!
//! Kiln has no ambient authority: `Temporal.Now` reads the instant from the
//! runtime's clock (the one `Date.now()` uses) and the system time zone is
//! UTC. Named IANA time zones come from the tz database compiled into
//! temporal_rs (`compiled_data`); nothing reads the file system.

mod duration;
mod instant;
mod now;
mod options;
mod plain_date;
mod plain_date_time;
mod plain_month_day;
mod plain_time;
mod plain_year_month;
mod zoned_date_time;

use super::{define_to_string_tag, make_unbound_constructor, new_plain_object};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::object::{Attrs, NativeFn, ObjectKind};
use crate::realm::Intrinsics;
use crate::value::Value;
use temporal_rs::options::{DifferenceSettings, DisplayCalendar, Overflow};
use temporal_rs::{
    Duration, Instant, PlainDate, PlainDateTime, PlainMonthDay, PlainTime, PlainYearMonth,
    TemporalError, TemporalResult, ZonedDateTime,
};

/// The value a Temporal object holds.
#[derive(Clone, Debug)]
pub enum TemporalValue {
    Duration(Duration),
    Instant(Instant),
    PlainDate(PlainDate),
    PlainDateTime(PlainDateTime),
    PlainMonthDay(PlainMonthDay),
    PlainTime(PlainTime),
    PlainYearMonth(PlainYearMonth),
    ZonedDateTime(ZonedDateTime),
}

/// A Temporal type: how to find its value in a [`TemporalValue`] and its prototype.
pub(crate) trait TemporalType: Clone {
    /// the constructor's name, for messages
    const NAME: &'static str;
    fn get(value: &TemporalValue) -> Option<&Self>;
    fn wrap(self) -> TemporalValue;
    fn prototype(intrinsics: &Intrinsics) -> ObjectId;
}

macro_rules! temporal_types {
    ($($ty:ident: $name:literal, $proto:ident;)*) => {$(
        impl TemporalType for $ty {
            const NAME: &'static str = $name;
            fn get(value: &TemporalValue) -> Option<&Self> {
                match value {
                    TemporalValue::$ty(v) => Some(v),
                    _ => None,
                }
            }
            fn wrap(self) -> TemporalValue {
                TemporalValue::$ty(self)
            }
            fn prototype(intrinsics: &Intrinsics) -> ObjectId {
                intrinsics.$proto
            }
        }
    )*};
}

temporal_types! {
    Duration: "Temporal.Duration", temporal_duration_prototype;
    Instant: "Temporal.Instant", temporal_instant_prototype;
    PlainDate: "Temporal.PlainDate", temporal_plain_date_prototype;
    PlainDateTime: "Temporal.PlainDateTime", temporal_plain_date_time_prototype;
    PlainMonthDay: "Temporal.PlainMonthDay", temporal_plain_month_day_prototype;
    PlainTime: "Temporal.PlainTime", temporal_plain_time_prototype;
    PlainYearMonth: "Temporal.PlainYearMonth", temporal_plain_year_month_prototype;
    ZonedDateTime: "Temporal.ZonedDateTime", temporal_zoned_date_time_prototype;
}

/// The Temporal value of type `T` that `v` holds, if it is such an object.
pub(crate) fn value_of<T: TemporalType>(vm: &Vm, v: Value) -> Option<T> {
    match &vm.heap.object(v.as_object()?).kind {
        ObjectKind::Temporal(t) => T::get(t).cloned(),
        _ => None,
    }
}

/// The `this` value's Temporal value of type `T`, or a TypeError naming the method
/// (RequireInternalSlot).
pub(crate) fn this_value<T: TemporalType>(vm: &mut Vm, this: Value, method: &str) -> JsResult<T> {
    match value_of::<T>(vm, this) {
        Some(v) => Ok(v),
        None => Err(vm.type_error(format!(
            "{}.prototype.{method} called on a value that is not a {}",
            T::NAME,
            T::NAME
        ))),
    }
}

/// A new Temporal object holding `value`, with the prototype from `new_target` when
/// constructing (OrdinaryCreateFromConstructor) or the intrinsic one.
pub(crate) fn create<T: TemporalType>(vm: &mut Vm, value: T, new_target: Value) -> JsResult<Value> {
    let proto = if new_target.is_undefined() {
        T::prototype(&vm.intrinsics)
    } else {
        vm.prototype_from_constructor(new_target, T::prototype)?
    };
    let kind = ObjectKind::Temporal(Box::new(value.wrap()));
    Ok(Value::object(vm.heap.new_object(Some(proto), kind)))
}

/// Map a temporal_rs error to the JavaScript error the specification names.
pub(crate) fn throw(vm: &mut Vm, e: TemporalError) -> crate::Thrown {
    use temporal_rs::error::ErrorKind;
    let kind = e.kind();
    let message = e.into_message();
    match kind {
        ErrorKind::Type => vm.type_error(message),
        ErrorKind::Syntax => vm.syntax_error(message),
        ErrorKind::Range | ErrorKind::Generic | ErrorKind::Assert => vm.range_error(message),
    }
}

/// `?` for temporal_rs results: the error becomes a thrown JavaScript error.
pub(crate) trait OrThrow<T> {
    fn or_throw(self, vm: &mut Vm) -> JsResult<T>;
}

impl<T> OrThrow<T> for Result<T, TemporalError> {
    fn or_throw(self, vm: &mut Vm) -> JsResult<T> {
        self.map_err(|e| throw(vm, e))
    }
}

/// A constructor's `prototype.valueOf`: Temporal objects refuse to be compared with `<`.
fn value_of_method(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    Err(vm.type_error(
        "Temporal objects have no primitive value; use compare() or equals() to compare them",
    ))
}

/// The calendar accessors PlainDate, PlainDateTime and ZonedDateTime share.
pub(crate) trait CalendarDate: TemporalType {
    fn calendar(&self) -> &temporal_rs::Calendar;
    fn era(&self) -> Option<temporal_rs::TinyAsciiStr<16>>;
    fn era_year(&self) -> Option<i32>;
    fn year(&self) -> i32;
    fn month(&self) -> u8;
    fn month_code(&self) -> temporal_rs::MonthCode;
    fn day(&self) -> u8;
    fn day_of_week(&self) -> u16;
    fn day_of_year(&self) -> u16;
    fn week_of_year(&self) -> Option<u8>;
    fn year_of_week(&self) -> Option<i32>;
    fn days_in_week(&self) -> u16;
    fn days_in_month(&self) -> u16;
    fn days_in_year(&self) -> u16;
    fn months_in_year(&self) -> u16;
    fn in_leap_year(&self) -> bool;
}

/// The wall-clock accessors PlainTime, PlainDateTime and ZonedDateTime share.
pub(crate) trait WallTime: TemporalType {
    fn hour(&self) -> u8;
    fn minute(&self) -> u8;
    fn second(&self) -> u8;
    fn millisecond(&self) -> u16;
    fn microsecond(&self) -> u16;
    fn nanosecond(&self) -> u16;
}

macro_rules! delegate {
    ($trait:ident for [$($ty:ty),*] $methods:tt) => {
        $(delegate!(@one $trait $ty $methods);)*
    };
    (@one $trait:ident $ty:ty { $($name:ident -> $ret:ty),* }) => {
        impl $trait for $ty {
            $(fn $name(&self) -> $ret {
                <$ty>::$name(self)
            })*
        }
    };
}

delegate!(CalendarDate for [PlainDate, PlainDateTime, ZonedDateTime] {
    calendar -> &temporal_rs::Calendar,
    era -> Option<temporal_rs::TinyAsciiStr<16>>,
    era_year -> Option<i32>,
    year -> i32,
    month -> u8,
    month_code -> temporal_rs::MonthCode,
    day -> u8,
    day_of_week -> u16,
    day_of_year -> u16,
    week_of_year -> Option<u8>,
    year_of_week -> Option<i32>,
    days_in_week -> u16,
    days_in_month -> u16,
    days_in_year -> u16,
    months_in_year -> u16,
    in_leap_year -> bool
});

delegate!(WallTime for [PlainTime, PlainDateTime, ZonedDateTime] {
    hour -> u8,
    minute -> u8,
    second -> u8,
    millisecond -> u16,
    microsecond -> u16,
    nanosecond -> u16
});

/// An era (a string), or undefined for calendars without eras.
pub(crate) fn era_value(vm: &mut Vm, era: Option<temporal_rs::TinyAsciiStr<16>>) -> Value {
    match era {
        Some(e) => vm.string_value(e.as_str()),
        None => Value::UNDEFINED,
    }
}

/// An optional integer field (eraYear, weekOfYear, ...), or undefined.
pub(crate) fn optional_number<N: Into<f64>>(n: Option<N>) -> Value {
    n.map_or(Value::UNDEFINED, |n| Value::number(n.into()))
}

macro_rules! getter_fns {
    ($trait:ident: $($fn_name:ident, $js:literal, |$vm:ident, $v:ident| $body:expr;)*) => {
        $(
            #[doc = concat!("the `", $js, "` getter of the Temporal types with this accessor")]
            fn $fn_name<T: $trait>($vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
                let $v = this_value::<T>($vm, this, $js)?;
                Ok($body)
            }
        )*
    };
}

getter_fns!(CalendarDate:
    calendar_id, "calendarId", |vm, v| vm.intern_value(v.calendar().identifier());
    era, "era", |vm, v| era_value(vm, v.era());
    era_year, "eraYear", |vm, v| optional_number(v.era_year());
    year, "year", |vm, v| Value::number(v.year().into());
    month, "month", |vm, v| Value::number(v.month().into());
    month_code, "monthCode", |vm, v| vm.string_value(v.month_code().as_str());
    day, "day", |vm, v| Value::number(v.day().into());
    day_of_week, "dayOfWeek", |vm, v| Value::number(v.day_of_week().into());
    day_of_year, "dayOfYear", |vm, v| Value::number(v.day_of_year().into());
    week_of_year, "weekOfYear", |vm, v| optional_number(v.week_of_year());
    year_of_week, "yearOfWeek", |vm, v| optional_number(v.year_of_week());
    days_in_week, "daysInWeek", |vm, v| Value::number(v.days_in_week().into());
    days_in_month, "daysInMonth", |vm, v| Value::number(v.days_in_month().into());
    days_in_year, "daysInYear", |vm, v| Value::number(v.days_in_year().into());
    months_in_year, "monthsInYear", |vm, v| Value::number(v.months_in_year().into());
    in_leap_year, "inLeapYear", |vm, v| Value::bool(v.in_leap_year());
);

getter_fns!(WallTime:
    hour, "hour", |vm, v| Value::number(v.hour().into());
    minute, "minute", |vm, v| Value::number(v.minute().into());
    second, "second", |vm, v| Value::number(v.second().into());
    millisecond, "millisecond", |vm, v| Value::number(v.millisecond().into());
    microsecond, "microsecond", |vm, v| Value::number(v.microsecond().into());
    nanosecond, "nanosecond", |vm, v| Value::number(v.nanosecond().into());
);

/// The calendar getters of a type with [`CalendarDate`].
pub(crate) const fn date_getters<T: CalendarDate>() -> [(&'static str, NativeFn); 16] {
    [
        ("calendarId", calendar_id::<T>),
        ("era", era::<T>),
        ("eraYear", era_year::<T>),
        ("year", year::<T>),
        ("month", month::<T>),
        ("monthCode", month_code::<T>),
        ("day", day::<T>),
        ("dayOfWeek", day_of_week::<T>),
        ("dayOfYear", day_of_year::<T>),
        ("weekOfYear", week_of_year::<T>),
        ("yearOfWeek", year_of_week::<T>),
        ("daysInWeek", days_in_week::<T>),
        ("daysInMonth", days_in_month::<T>),
        ("daysInYear", days_in_year::<T>),
        ("monthsInYear", months_in_year::<T>),
        ("inLeapYear", in_leap_year::<T>),
    ]
}

/// The time getters of a type with [`WallTime`].
pub(crate) const fn time_getters<T: WallTime>() -> [(&'static str, NativeFn); 6] {
    [
        ("hour", hour::<T>),
        ("minute", minute::<T>),
        ("second", second::<T>),
        ("millisecond", millisecond::<T>),
        ("microsecond", microsecond::<T>),
        ("nanosecond", nanosecond::<T>),
    ]
}

/// The types with `until` and `since`: how the other argument is converted, the unit
/// group their difference settings allow, and the temporal_rs operations.
trait Difference: TemporalType {
    const UNITS: options::UnitGroup;
    /// ToTemporalX(other)
    fn convert(vm: &mut Vm, other: Value) -> JsResult<Self>;
    fn until(&self, other: &Self, settings: DifferenceSettings) -> TemporalResult<Duration>;
    fn since(&self, other: &Self, settings: DifferenceSettings) -> TemporalResult<Duration>;
    /// Units the type disallows beyond its group.
    fn check(_vm: &mut Vm, _settings: &DifferenceSettings) -> JsResult<()> {
        Ok(())
    }
    /// The calendar and year of a type with a date.
    fn calendar_year(&self) -> Option<(&temporal_rs::Calendar, i32)> {
        None
    }
}

/// Fuel per month a lunisolar difference may walk (about 3 µs of work each).
const LUNISOLAR_MONTH_FUEL: u64 = 1_000;

/// A difference in the `chinese` and `dangi` calendars walks month by month inside
/// temporal_rs, in one call that no interrupt reaches: its fuel is charged up front,
/// by the months between the two years, so a fuel budget bounds it.
fn charge_calendar_walk<T: Difference>(vm: &mut Vm, a: &T, b: &T) -> JsResult<()> {
    let (Some((calendar, from)), Some((_, to))) = (a.calendar_year(), b.calendar_year()) else {
        return Ok(());
    };
    if !matches!(calendar.identifier(), "chinese" | "dangi") {
        return Ok(());
    }
    let months = 13 * (i64::from(from) - i64::from(to)).unsigned_abs();
    vm.charge(months.saturating_mul(LUNISOLAR_MONTH_FUEL))
}

/// `until(other, options)` of a [`Difference`] type
/// ([DifferenceTemporalPlainDate](https://tc39.es/proposal-temporal/#sec-temporal-differencetemporalplaindate)
/// and its siblings).
fn until<T: Difference>(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    difference::<T>(vm, this, args, true)
}

/// `since(other, options)` of a [`Difference`] type.
fn since<T: Difference>(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    difference::<T>(vm, this, args, false)
}

fn difference<T: Difference>(vm: &mut Vm, this: Value, args: Args, until: bool) -> JsResult<Value> {
    let value = this_value::<T>(vm, this, if until { "until" } else { "since" })?;
    // Set other to ? ToTemporalX(other), then GetDifferenceSettings(options).
    let other = T::convert(vm, vm.arg(args, 0))?;
    let settings = options::difference_settings(vm, vm.arg(args, 1), T::UNITS)?;
    T::check(vm, &settings)?;
    charge_calendar_walk(vm, &value, &other)?;
    let result = if until {
        value.until(&other, settings)
    } else {
        value.since(&other, settings)
    };
    let duration = result.or_throw(vm)?;
    create(vm, duration, Value::UNDEFINED)
}

/// The `until` and `since` method table rows of a [`Difference`] type.
const fn difference_methods<T: Difference>() -> [(&'static str, NativeFn, u32); 2] {
    [("until", until::<T>, 1), ("since", since::<T>, 1)]
}

/// The types whose `add` and `subtract` take a duration and an options bag with
/// `overflow`.
trait AddDuration: TemporalType {
    fn add(&self, duration: &Duration, overflow: Overflow) -> TemporalResult<Self>;
    fn subtract(&self, duration: &Duration, overflow: Overflow) -> TemporalResult<Self>;
}

/// `add(temporalDurationLike, options)` of an [`AddDuration`] type
/// ([AddDurationToDate](https://tc39.es/proposal-temporal/#sec-temporal-adddurationtodate)
/// and its siblings).
fn add<T: AddDuration>(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    add_or_subtract::<T>(vm, this, args, true)
}

/// `subtract(temporalDurationLike, options)` of an [`AddDuration`] type.
fn subtract<T: AddDuration>(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    add_or_subtract::<T>(vm, this, args, false)
}

fn add_or_subtract<T: AddDuration>(
    vm: &mut Vm,
    this: Value,
    args: Args,
    add: bool,
) -> JsResult<Value> {
    let value = this_value::<T>(vm, this, if add { "add" } else { "subtract" })?;
    // ToTemporalDuration, then GetOptionsObject and GetTemporalOverflowOption.
    let duration = options::to_duration(vm, vm.arg(args, 0))?;
    let bag = options::options_object(vm, vm.arg(args, 1))?;
    let overflow = options::overflow(vm, bag)?;
    let result = if add {
        value.add(&duration, overflow)
    } else {
        value.subtract(&duration, overflow)
    };
    let result = result.or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

macro_rules! add_duration {
    ($($ty:ty: |$v:ident, $d:ident, $o:ident| $add:expr, $subtract:expr;)*) => {$(
        impl AddDuration for $ty {
            fn add(&self, $d: &Duration, $o: Overflow) -> TemporalResult<Self> {
                let $v = self;
                $add
            }
            fn subtract(&self, $d: &Duration, $o: Overflow) -> TemporalResult<Self> {
                let $v = self;
                $subtract
            }
        }
    )*};
}

add_duration! {
    PlainDate: |v, d, o| v.add(d, Some(o)), v.subtract(d, Some(o));
    PlainDateTime: |v, d, o| v.add(d, Some(o)), v.subtract(d, Some(o));
    PlainYearMonth: |v, d, o| v.add(d, o), v.subtract(d, o);
    ZonedDateTime: |v, d, o| v.add(d, Some(o)), v.subtract(d, Some(o));
}

/// The `add` and `subtract` method table rows of an [`AddDuration`] type.
const fn add_methods<T: AddDuration>() -> [(&'static str, NativeFn, u32); 2] {
    [("add", add::<T>, 1), ("subtract", subtract::<T>, 1)]
}

/// The types whose string form has only a calendar option (PlainDate,
/// PlainYearMonth, PlainMonthDay).
trait CalendarString: TemporalType {
    fn ixdtf(&self, show_calendar: DisplayCalendar) -> String;
}

macro_rules! calendar_string {
    ($($ty:ty),*) => {$(
        impl CalendarString for $ty {
            fn ixdtf(&self, show_calendar: DisplayCalendar) -> String {
                self.to_ixdtf_string(show_calendar)
            }
        }
    )*};
}

calendar_string!(PlainDate, PlainYearMonth, PlainMonthDay);

/// `toString(options)` of a [`CalendarString`] type
/// ([TemporalDateToString](https://tc39.es/proposal-temporal/#sec-temporal-temporaldatetostring)
/// and its siblings): the calendarName option.
fn calendar_to_string<T: CalendarString>(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let value = this_value::<T>(vm, this, "toString")?;
    let options = options::options_object(vm, vm.arg(args, 0))?;
    let show_calendar = options::calendar_name(vm, options)?;
    let s = value.ixdtf(show_calendar);
    Ok(vm.string_value(&s))
}

/// `toJSON()` of a [`CalendarString`] type; also `toLocaleString`, which without
/// Intl returns the same string.
fn calendar_to_json<T: CalendarString>(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let value = this_value::<T>(vm, this, "toJSON")?;
    let s = value.ixdtf(DisplayCalendar::Auto);
    Ok(vm.string_value(&s))
}

/// The `toString`, `toLocaleString` and `toJSON` rows of a [`CalendarString`] type.
const fn calendar_string_methods<T: CalendarString>() -> [(&'static str, NativeFn, u32); 3] {
    [
        ("toString", calendar_to_string::<T>, 0),
        ("toLocaleString", calendar_to_json::<T>, 0),
        ("toJSON", calendar_to_json::<T>, 0),
    ]
}

/// Create a Temporal constructor with its prototype, static functions, prototype
/// getters and methods, and define it on the `Temporal` namespace.
pub(crate) struct TypeSpec {
    pub name: &'static str,
    pub tag: &'static str,
    pub constructor: NativeFn,
    pub length: u32,
    pub statics: &'static [(&'static str, NativeFn, u32)],
    pub getters: &'static [&'static [(&'static str, NativeFn)]],
    pub methods: &'static [&'static [(&'static str, NativeFn, u32)]],
}

fn define_type(
    vm: &mut Vm,
    namespace: ObjectId,
    spec: &TypeSpec,
    set_proto: fn(&mut Intrinsics, ObjectId),
) -> ObjectId {
    let proto = new_plain_object(vm);
    set_proto(&mut vm.intrinsics, proto);
    let ctor = make_unbound_constructor(vm, spec.name, spec.constructor, spec.length, proto);
    for &(name, f, length) in spec.statics {
        vm.define_native(ctor, name, f, length);
    }
    for &(name, f) in spec.getters.iter().copied().flatten() {
        super::define_getter(vm, proto, name, f);
    }
    for &(name, f, length) in spec.methods.iter().copied().flatten() {
        vm.define_native(proto, name, f, length);
    }
    vm.define_native(proto, "valueOf", value_of_method, 0);
    define_to_string_tag(vm, proto, spec.tag);
    let key = vm.key(spec.name);
    vm.define_builtin(namespace, key, Value::object(ctor), Attrs::HIDDEN);
    ctor
}

/// Create the `Temporal` namespace and its constructors.
pub fn init(vm: &mut Vm) {
    let namespace = new_plain_object(vm);
    define_to_string_tag(vm, namespace, "Temporal");
    define_type(vm, namespace, &duration::SPEC, |i, p| {
        i.temporal_duration_prototype = p
    });
    define_type(vm, namespace, &instant::SPEC, |i, p| {
        i.temporal_instant_prototype = p
    });
    define_type(vm, namespace, &plain_date::SPEC, |i, p| {
        i.temporal_plain_date_prototype = p
    });
    define_type(vm, namespace, &plain_date_time::SPEC, |i, p| {
        i.temporal_plain_date_time_prototype = p
    });
    define_type(vm, namespace, &plain_month_day::SPEC, |i, p| {
        i.temporal_plain_month_day_prototype = p
    });
    define_type(vm, namespace, &plain_time::SPEC, |i, p| {
        i.temporal_plain_time_prototype = p
    });
    define_type(vm, namespace, &plain_year_month::SPEC, |i, p| {
        i.temporal_plain_year_month_prototype = p
    });
    define_type(vm, namespace, &zoned_date_time::SPEC, |i, p| {
        i.temporal_zoned_date_time_prototype = p
    });
    now::init(vm, namespace);
    let date_proto = vm.intrinsics.date_prototype;
    vm.define_native(
        date_proto,
        "toTemporalInstant",
        instant::date_to_temporal_instant,
        0,
    );
    super::define_global(vm, "Temporal", Value::object(namespace));
}

// ---- snapshots ----

impl TemporalValue {
    /// The value in a stable text form for snapshots: ISO strings with the calendar
    /// always shown for the plain types, a Duration's ten fields, an Instant's epoch
    /// nanoseconds, a ZonedDateTime's epoch nanoseconds, calendar and time zone.
    /// [`TemporalValue::from_snapshot`] reads it back and validates it.
    pub fn to_snapshot(&self) -> (u8, String) {
        let always = DisplayCalendar::Always;
        match self {
            TemporalValue::Duration(d) => (
                0,
                format!(
                    "{},{},{},{},{},{},{},{},{},{}",
                    d.years(),
                    d.months(),
                    d.weeks(),
                    d.days(),
                    d.hours(),
                    d.minutes(),
                    d.seconds(),
                    d.milliseconds(),
                    d.microseconds(),
                    d.nanoseconds()
                ),
            ),
            TemporalValue::Instant(i) => (1, i.as_i128().to_string()),
            TemporalValue::PlainDate(d) => (2, d.to_ixdtf_string(always)),
            TemporalValue::PlainDateTime(d) => (
                3,
                d.to_ixdtf_string(Default::default(), always)
                    .unwrap_or_default(),
            ),
            TemporalValue::PlainMonthDay(d) => (4, d.to_ixdtf_string(always)),
            TemporalValue::PlainTime(t) => {
                (5, t.to_ixdtf_string(Default::default()).unwrap_or_default())
            }
            TemporalValue::PlainYearMonth(d) => (6, d.to_ixdtf_string(always)),
            TemporalValue::ZonedDateTime(z) => (
                7,
                format!(
                    "{},{},{}",
                    z.epoch_nanoseconds().as_i128(),
                    z.calendar().identifier(),
                    z.time_zone().identifier().unwrap_or_default()
                ),
            ),
        }
    }

    /// Read a value written by [`TemporalValue::to_snapshot`]; None if the text is not one.
    pub fn from_snapshot(tag: u8, text: &str) -> Option<TemporalValue> {
        let bytes = text.as_bytes();
        Some(match tag {
            0 => {
                let mut fields = [0i128; 10];
                let mut parts = text.split(',');
                for f in &mut fields {
                    *f = parts.next()?.parse().ok()?;
                }
                if parts.next().is_some() {
                    return None;
                }
                let int = |v: i128| i64::try_from(v).ok();
                TemporalValue::Duration(
                    Duration::new(
                        int(fields[0])?,
                        int(fields[1])?,
                        int(fields[2])?,
                        int(fields[3])?,
                        int(fields[4])?,
                        int(fields[5])?,
                        int(fields[6])?,
                        int(fields[7])?,
                        fields[8],
                        fields[9],
                    )
                    .ok()?,
                )
            }
            1 => TemporalValue::Instant(Instant::try_new(text.parse().ok()?).ok()?),
            2 => TemporalValue::PlainDate(PlainDate::from_utf8(bytes).ok()?),
            3 => TemporalValue::PlainDateTime(PlainDateTime::from_utf8(bytes).ok()?),
            4 => {
                let (year, month, day, calendar) = iso_fields(text)?;
                TemporalValue::PlainMonthDay(
                    PlainMonthDay::new_with_overflow(
                        month,
                        day,
                        calendar,
                        temporal_rs::options::Overflow::Reject,
                        Some(year),
                    )
                    .ok()?,
                )
            }
            5 => TemporalValue::PlainTime(PlainTime::from_utf8(bytes).ok()?),
            6 => {
                let (year, month, day, calendar) = iso_fields(text)?;
                TemporalValue::PlainYearMonth(
                    PlainYearMonth::try_new(year, month, Some(day), calendar).ok()?,
                )
            }
            7 => {
                let (ns, rest) = text.split_once(',')?;
                let (calendar, zone) = rest.split_once(',')?;
                TemporalValue::ZonedDateTime(
                    ZonedDateTime::try_new(
                        ns.parse().ok()?,
                        temporal_rs::TimeZone::try_from_identifier_str(zone).ok()?,
                        temporal_rs::Calendar::try_from_utf8(calendar.as_bytes()).ok()?,
                    )
                    .ok()?,
                )
            }
            _ => return None,
        })
    }
}

/// The ISO year, month, day and calendar of `YYYY-MM-DD[u-ca=id]` as PlainYearMonth
/// and PlainMonthDay write themselves with the calendar always shown. (Parsing it as a
/// year-month or month-day would reset the reference day or year.)
fn iso_fields(text: &str) -> Option<(i32, u8, u8, temporal_rs::Calendar)> {
    let (date, annotation) = text.split_once("[u-ca=")?;
    let calendar = temporal_rs::Calendar::try_from_utf8(annotation.strip_suffix(']')?.as_bytes());
    let mut parts = date.rsplitn(3, '-');
    let day = parts.next()?.parse().ok()?;
    let month = parts.next()?.parse().ok()?;
    let year = parts.next()?.parse().ok()?;
    Some((year, month, day, calendar.ok()?))
}

#[cfg(test)]
mod tests {
    use super::TemporalValue;

    #[test]
    fn snapshot_forms_round_trip() {
        let values = [
            TemporalValue::Duration(
                temporal_rs::Duration::new(1, -0, 0, 0, 0, 0, 0, 1000, 0, 5).unwrap(),
            ),
            TemporalValue::Instant(temporal_rs::Instant::try_new(-123_456_789).unwrap()),
            TemporalValue::PlainDate(temporal_rs::PlainDate::from_utf8(b"2020-02-29").unwrap()),
            TemporalValue::PlainYearMonth(
                temporal_rs::PlainYearMonth::try_new_iso(-271821, 4, Some(15)).unwrap(),
            ),
            TemporalValue::PlainMonthDay(
                temporal_rs::PlainMonthDay::new_with_overflow(
                    2,
                    29,
                    temporal_rs::Calendar::ISO,
                    temporal_rs::options::Overflow::Reject,
                    Some(2000),
                )
                .unwrap(),
            ),
            TemporalValue::ZonedDateTime(
                temporal_rs::ZonedDateTime::from_utf8(
                    b"1970-01-01T00:00:00.000000001-00:44:30[Africa/Monrovia][u-ca=japanese]",
                    temporal_rs::options::Disambiguation::Compatible,
                    temporal_rs::options::OffsetDisambiguation::Use,
                )
                .unwrap(),
            ),
        ];
        for v in values {
            let (tag, text) = v.to_snapshot();
            let back = TemporalValue::from_snapshot(tag, &text).unwrap();
            assert_eq!(back.to_snapshot(), (tag, text));
        }
        assert!(TemporalValue::from_snapshot(0, "1,2").is_none());
        assert!(TemporalValue::from_snapshot(2, "2020-13-01").is_none());
        assert!(TemporalValue::from_snapshot(9, "").is_none());
    }
}
