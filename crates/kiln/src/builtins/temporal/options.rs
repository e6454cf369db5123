//! The abstract operations the Temporal types share: reading options bags and
//! property bags in the specification's order, and converting JavaScript values
//! to temporal_rs values (ToTemporalDuration, ToTemporalTimeZoneIdentifier, ...).
//!
//! An options bag is `Option<ObjectId>`: `None` stands for GetOptionsObject's
//! empty object, from which every read is undefined.

use super::{OrThrow, value_of};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::Vm;
use crate::interpreter::convert::Hint;
use crate::object::ObjectKind;
use crate::value::Value;
use temporal_rs::fields::{CalendarFields, YearMonthCalendarFields};
use temporal_rs::options::{
    DifferenceSettings, Disambiguation, DisplayCalendar, DisplayOffset, DisplayTimeZone,
    OffsetDisambiguation, Overflow, RelativeTo, RoundingIncrement, RoundingMode, RoundingOptions,
    ToStringRoundingOptions, Unit,
};
use temporal_rs::parsers::Precision;
use temporal_rs::partial::{PartialDuration, PartialTime};
use temporal_rs::{
    Calendar, Duration, MonthCode, PlainDate, PlainDateTime, TimeZone, TinyAsciiStr, UtcOffset,
    ZonedDateTime,
};

/// An options bag after GetOptionsObject.
pub(super) type Options = Option<ObjectId>;

/// [GetOptionsObject](https://tc39.es/proposal-temporal/#sec-getoptionsobject)
pub(super) fn options_object(vm: &mut Vm, options: Value) -> JsResult<Options> {
    if options.is_undefined() {
        return Ok(None);
    }
    match options.as_object() {
        Some(o) => Ok(Some(o)),
        None => Err(vm.type_error("options must be an object or undefined")),
    }
}

/// Get(`object`, `name`): may run JavaScript.
pub(super) fn get(vm: &mut Vm, object: ObjectId, name: &str) -> JsResult<Value> {
    let key = vm.key(name);
    vm.get(Value::object(object), key)
}

/// [GetOption](https://tc39.es/proposal-temporal/#sec-getoption) for a string option:
/// Get, ToString, then a RangeError unless the value is one of `allowed`.
fn string_option(
    vm: &mut Vm,
    options: Options,
    name: &str,
    allowed: &[&str],
) -> JsResult<Option<String>> {
    let Some(o) = options else { return Ok(None) };
    let v = get(vm, o, name)?;
    if v.is_undefined() {
        return Ok(None);
    }
    let s = vm.to_string(v)?;
    let s = vm.heap.string_to_rust(s);
    if !allowed.contains(&s.as_str()) {
        return Err(vm.range_error(format!("'{s}' is not a valid value for option {name}")));
    }
    Ok(Some(s))
}

/// A string option parsed by temporal_rs's `FromStr` for that option, or `default`.
fn parsed_option<T: std::str::FromStr>(
    vm: &mut Vm,
    options: Options,
    name: &str,
    allowed: &[&str],
    default: T,
) -> JsResult<T> {
    match string_option(vm, options, name, allowed)? {
        Some(s) => s
            .parse()
            .map_err(|_| vm.range_error(format!("'{s}' is not a valid value for option {name}"))),
        None => Ok(default),
    }
}

/// [GetTemporalOverflowOption](https://tc39.es/proposal-temporal/#sec-temporal-gettemporaloverflowoption)
pub(super) fn overflow(vm: &mut Vm, options: Options) -> JsResult<Overflow> {
    parsed_option(
        vm,
        options,
        "overflow",
        &["constrain", "reject"],
        Overflow::Constrain,
    )
}

/// [GetTemporalDisambiguationOption](https://tc39.es/proposal-temporal/#sec-temporal-gettemporaldisambiguationoption)
pub(super) fn disambiguation(vm: &mut Vm, options: Options) -> JsResult<Disambiguation> {
    parsed_option(
        vm,
        options,
        "disambiguation",
        &["compatible", "earlier", "later", "reject"],
        Disambiguation::Compatible,
    )
}

/// [GetTemporalOffsetOption](https://tc39.es/proposal-temporal/#sec-temporal-gettemporaloffsetoption)
pub(super) fn offset_option(
    vm: &mut Vm,
    options: Options,
    fallback: OffsetDisambiguation,
) -> JsResult<OffsetDisambiguation> {
    parsed_option(
        vm,
        options,
        "offset",
        &["prefer", "use", "ignore", "reject"],
        fallback,
    )
}

/// [GetTemporalShowCalendarNameOption](https://tc39.es/proposal-temporal/#sec-temporal-gettemporalshowcalendarnameoption)
pub(super) fn calendar_name(vm: &mut Vm, options: Options) -> JsResult<DisplayCalendar> {
    parsed_option(
        vm,
        options,
        "calendarName",
        &["auto", "always", "never", "critical"],
        DisplayCalendar::Auto,
    )
}

/// [GetTemporalShowTimeZoneNameOption](https://tc39.es/proposal-temporal/#sec-temporal-gettemporalshowtimezonenameoption)
pub(super) fn time_zone_name(vm: &mut Vm, options: Options) -> JsResult<DisplayTimeZone> {
    parsed_option(
        vm,
        options,
        "timeZoneName",
        &["auto", "never", "critical"],
        DisplayTimeZone::Auto,
    )
}

/// [GetTemporalShowOffsetOption](https://tc39.es/proposal-temporal/#sec-temporal-gettemporalshowoffsetoption)
pub(super) fn show_offset(vm: &mut Vm, options: Options) -> JsResult<DisplayOffset> {
    parsed_option(
        vm,
        options,
        "offset",
        &["auto", "never"],
        DisplayOffset::Auto,
    )
}

const ROUNDING_MODES: [&str; 9] = [
    "ceil",
    "floor",
    "expand",
    "trunc",
    "halfCeil",
    "halfFloor",
    "halfExpand",
    "halfTrunc",
    "halfEven",
];

/// [GetRoundingModeOption](https://tc39.es/proposal-temporal/#sec-temporal-getroundingmodeoption)
/// (None: the caller's fallback)
pub(super) fn rounding_mode(vm: &mut Vm, options: Options) -> JsResult<Option<RoundingMode>> {
    match string_option(vm, options, "roundingMode", &ROUNDING_MODES)? {
        Some(s) => s.parse::<RoundingMode>().map(Some).or_throw(vm),
        None => Ok(None),
    }
}

/// [GetRoundingIncrementOption](https://tc39.es/proposal-temporal/#sec-temporal-getroundingincrementoption)
pub(super) fn rounding_increment(
    vm: &mut Vm,
    options: Options,
) -> JsResult<Option<RoundingIncrement>> {
    let Some(o) = options else { return Ok(None) };
    let v = get(vm, o, "roundingIncrement")?;
    if v.is_undefined() {
        return Ok(None);
    }
    // 3-7. ToIntegerWithTruncation, then 1 ≤ increment ≤ 10⁹.
    let n = vm.to_number(v)?;
    RoundingIncrement::try_from(n).map(Some).or_throw(vm)
}

const UNIT_NAMES: [&str; 21] = [
    "auto",
    "year",
    "years",
    "month",
    "months",
    "week",
    "weeks",
    "day",
    "days",
    "hour",
    "hours",
    "minute",
    "minutes",
    "second",
    "seconds",
    "millisecond",
    "milliseconds",
    "microsecond",
    "microseconds",
    "nanosecond",
    "nanoseconds",
];

/// A unit name (singular or plural, or "auto") as a `Unit`, or a RangeError.
pub(super) fn parse_unit(vm: &mut Vm, name: &str, option: &str) -> JsResult<Unit> {
    match name.parse::<Unit>() {
        Ok(u) if UNIT_NAMES.contains(&name) => Ok(u),
        _ => Err(vm.range_error(format!("'{name}' is not a valid value for option {option}"))),
    }
}

/// [GetTemporalUnitValuedOption](https://tc39.es/proposal-temporal/#sec-temporal-gettemporalunitvaluedoption)
/// (None: unset)
pub(super) fn unit_option(vm: &mut Vm, options: Options, name: &str) -> JsResult<Option<Unit>> {
    match string_option(vm, options, name, &UNIT_NAMES)? {
        Some(s) => parse_unit(vm, &s, name).map(Some),
        None => Ok(None),
    }
}

/// The unit groups of [ValidateTemporalUnitValue](https://tc39.es/proposal-temporal/#sec-temporal-validatetemporalunitvaluedoption).
#[derive(Clone, Copy, PartialEq)]
pub(super) enum UnitGroup {
    Date,
    Time,
    DateTime,
}

/// [ValidateTemporalUnitValue](https://tc39.es/proposal-temporal/#sec-temporal-validatetemporalunitvaluedoption)
pub(super) fn validate_unit(
    vm: &mut Vm,
    unit: Option<Unit>,
    group: UnitGroup,
    allow_auto: bool,
    option: &str,
) -> JsResult<()> {
    let Some(unit) = unit else { return Ok(()) };
    let ok = match unit {
        Unit::Auto => allow_auto,
        u if u.is_date_unit() => group != UnitGroup::Time,
        _ => group != UnitGroup::Date,
    };
    if ok {
        Ok(())
    } else {
        Err(vm.range_error(format!("{unit} is not a valid unit for option {option}")))
    }
}

/// [GetDifferenceSettings](https://tc39.es/proposal-temporal/#sec-temporal-getdifferencesettings),
/// steps 1-9: the four options in alphabetical order, then the unit groups. The
/// remaining checks (defaults, ordering of the units, increments) are temporal_rs's.
pub(super) fn difference_settings(
    vm: &mut Vm,
    options: Value,
    group: UnitGroup,
) -> JsResult<DifferenceSettings> {
    let options = options_object(vm, options)?;
    let largest_unit = unit_option(vm, options, "largestUnit")?;
    let increment = rounding_increment(vm, options)?;
    let rounding_mode = rounding_mode(vm, options)?;
    let smallest_unit = unit_option(vm, options, "smallestUnit")?;
    validate_unit(vm, largest_unit, group, true, "largestUnit")?;
    validate_unit(vm, smallest_unit, group, false, "smallestUnit")?;
    let mut settings = DifferenceSettings::default();
    settings.largest_unit = largest_unit;
    settings.smallest_unit = smallest_unit;
    settings.rounding_mode = rounding_mode;
    settings.increment = increment;
    Ok(settings)
}

/// The `round(roundTo)` options of PlainTime, PlainDateTime, Instant and ZonedDateTime:
/// a unit string, or a bag read as roundingIncrement, roundingMode, smallestUnit
/// (required), then validated as a time unit (or "day" where `allow_day`).
pub(super) fn round_to_options(
    vm: &mut Vm,
    round_to: Value,
    allow_day: bool,
) -> JsResult<RoundingOptions> {
    let mut options = RoundingOptions::default();
    options.largest_unit = None;
    // 3. If roundTo is undefined, throw a TypeError exception.
    if round_to.is_undefined() {
        return Err(vm.type_error("round() needs a smallestUnit string or an options object"));
    }
    // 4. A string is the smallest unit.
    if let Some(s) = round_to.as_string() {
        let s = vm.heap.string_to_rust(s);
        options.smallest_unit = Some(parse_unit(vm, &s, "smallestUnit")?);
    } else {
        // 5. Set roundTo to ? GetOptionsObject(roundTo).
        let bag = options_object(vm, round_to)?;
        options.increment = rounding_increment(vm, bag)?;
        options.rounding_mode = rounding_mode(vm, bag)?;
        options.smallest_unit = unit_option(vm, bag, "smallestUnit")?;
    }
    if options.smallest_unit.is_none() {
        return Err(vm.range_error("round() needs a smallestUnit"));
    }
    // ValidateTemporalUnitValue(smallestUnit, time[, « day »]).
    if !(allow_day && options.smallest_unit == Some(Unit::Day)) {
        validate_unit(
            vm,
            options.smallest_unit,
            UnitGroup::Time,
            false,
            "smallestUnit",
        )?;
    }
    Ok(options)
}

/// [GetTemporalFractionalSecondDigitsOption](https://tc39.es/proposal-temporal/#sec-temporal-gettemporalfractionalseconddigitsoption)
pub(super) fn fractional_second_digits(vm: &mut Vm, options: Options) -> JsResult<Precision> {
    let Some(o) = options else {
        return Ok(Precision::Auto);
    };
    let v = get(vm, o, "fractionalSecondDigits")?;
    if v.is_undefined() {
        return Ok(Precision::Auto);
    }
    // 3. If digitsValue is not a Number, then it must be "auto".
    let Some(n) = v.as_number() else {
        let s = vm.to_string(v)?;
        if vm.heap.string_to_rust(s) == "auto" {
            return Ok(Precision::Auto);
        }
        return Err(vm.range_error("fractionalSecondDigits must be 'auto' or 0 to 9"));
    };
    // 4-6. NaN, infinities and values outside 0..=9 after flooring are RangeErrors.
    let digits = n.floor();
    if !n.is_finite() || !(0.0..=9.0).contains(&digits) {
        return Err(vm.range_error("fractionalSecondDigits must be 'auto' or 0 to 9"));
    }
    Ok(Precision::Digit(digits as u8))
}

/// The rounding options every `toString(options)` with a time part reads, in
/// alphabetical order around the type's own options: fractionalSecondDigits,
/// roundingMode, smallestUnit. The smallest unit is validated (a time unit other
/// than "hour") by [`validate_to_string_unit`], after any later reads.
pub(super) fn to_string_rounding(
    vm: &mut Vm,
    options: Options,
) -> JsResult<ToStringRoundingOptions> {
    let precision = fractional_second_digits(vm, options)?;
    let rounding_mode = rounding_mode(vm, options)?;
    let smallest_unit = unit_option(vm, options, "smallestUnit")?;
    Ok(ToStringRoundingOptions {
        precision,
        smallest_unit,
        rounding_mode,
    })
}

/// ToSecondsStringPrecisionRecord's unit check: a time unit, and not "hour".
pub(super) fn validate_to_string_unit(
    vm: &mut Vm,
    options: &ToStringRoundingOptions,
) -> JsResult<()> {
    validate_unit(
        vm,
        options.smallest_unit,
        UnitGroup::Time,
        false,
        "smallestUnit",
    )?;
    if options.smallest_unit == Some(Unit::Hour) {
        return Err(vm.range_error("smallestUnit must be minute or a smaller unit"));
    }
    Ok(())
}

// ---- numbers ----

/// [ToIntegerWithTruncation](https://tc39.es/proposal-temporal/#sec-tointegerwithtruncation)
pub(super) fn to_integer_with_truncation(vm: &mut Vm, v: Value) -> JsResult<f64> {
    let n = vm.to_number(v)?;
    if !n.is_finite() {
        return Err(vm.range_error(format!("{n} is not a finite number")));
    }
    Ok(n.trunc() + 0.0)
}

/// [ToPositiveIntegerWithTruncation](https://tc39.es/proposal-temporal/#sec-topositiveintegerwithtruncation)
pub(super) fn to_positive_integer_with_truncation(vm: &mut Vm, v: Value) -> JsResult<f64> {
    let n = to_integer_with_truncation(vm, v)?;
    if n <= 0.0 {
        return Err(vm.range_error(format!("{n} must be a positive integer")));
    }
    Ok(n)
}

/// [ToIntegerIfIntegral](https://tc39.es/proposal-temporal/#sec-tointegerifintegral)
pub(super) fn to_integer_if_integral(vm: &mut Vm, v: Value) -> JsResult<f64> {
    let n = vm.to_number(v)?;
    if !n.is_finite() || n.trunc() != n {
        return Err(vm.range_error(format!("{n} is not an integer")));
    }
    Ok(n + 0.0)
}

/// An integral Number as `i64`, saturating: values past the range are invalid
/// durations and years anyway, which temporal_rs reports.
pub(super) fn saturate_i64(n: f64) -> i64 {
    n as i64
}

/// A year (or era year) for temporal_rs: out-of-range values saturate to `i32`,
/// which temporal_rs then rejects as outside the supported range.
pub(super) fn saturate_i32(n: f64) -> i32 {
    n as i32
}

/// A time field for temporal_rs's narrow integer types. With `constrain`, negative
/// values become 0 and large values 65535 (both are then constrained to the field's
/// range); with `reject`, a negative value is a RangeError here and a large one
/// stays out of range for temporal_rs to reject.
fn time_field(vm: &mut Vm, n: Option<f64>, overflow: Overflow) -> JsResult<Option<u16>> {
    match n {
        Some(n) if n < 0.0 && overflow == Overflow::Reject => {
            Err(vm.range_error("time fields must not be negative"))
        }
        Some(n) => Ok(Some(n.clamp(0.0, 65535.0) as u16)),
        None => Ok(None),
    }
}

// ---- property bags ----

/// Which fields a property bag is read for (PrepareCalendarFields' field names).
#[derive(Clone, Copy)]
pub(super) struct FieldSet(u16);

impl FieldSet {
    pub const YEAR: FieldSet = FieldSet(1);
    pub const MONTH: FieldSet = FieldSet(2);
    pub const MONTH_CODE: FieldSet = FieldSet(4);
    pub const DAY: FieldSet = FieldSet(8);
    pub const TIME: FieldSet = FieldSet(16);
    pub const OFFSET: FieldSet = FieldSet(32);
    pub const TIME_ZONE: FieldSet = FieldSet(64);
    pub const DATE: FieldSet = FieldSet(1 | 2 | 4 | 8);
    pub const YEAR_MONTH: FieldSet = FieldSet(1 | 2 | 4);
    pub const DATE_TIME: FieldSet = FieldSet(1 | 2 | 4 | 8 | 16);
    pub const DATE_TIME_OFFSET: FieldSet = FieldSet(1 | 2 | 4 | 8 | 16 | 32);
    pub const ZONED: FieldSet = FieldSet(1 | 2 | 4 | 8 | 16 | 32 | 64);
    /// [`FieldSet::ZONED`] with the time zone required (ToTemporalZonedDateTime).
    pub const ZONED_WITH_TIME_ZONE: FieldSet = FieldSet(Self::ZONED.0 | 128);

    fn has(self, f: FieldSet) -> bool {
        self.0 & f.0 != 0
    }
}

/// The field values read from a property bag, converted as PrepareCalendarFields
/// converts them; numbers stay Numbers until the overflow option is known.
#[derive(Default)]
pub(super) struct Fields {
    pub any: bool,
    pub day: Option<f64>,
    pub era: Option<TinyAsciiStr<19>>,
    pub era_year: Option<f64>,
    pub hour: Option<f64>,
    pub microsecond: Option<f64>,
    pub millisecond: Option<f64>,
    pub minute: Option<f64>,
    pub month: Option<f64>,
    pub month_code: Option<MonthCode>,
    pub nanosecond: Option<f64>,
    pub offset: Option<UtcOffset>,
    pub second: Option<f64>,
    pub time_zone: Option<TimeZone>,
    pub year: Option<f64>,
}

/// Whether `calendar` has eras (CalendarExtraFields adds era and eraYear).
fn has_eras(calendar: &Calendar) -> bool {
    !matches!(calendar.identifier(), "iso8601" | "chinese" | "dangi")
}

/// [PrepareCalendarFields](https://tc39.es/proposal-temporal/#sec-temporal-preparecalendarfields):
/// read the fields of `set` (plus era and eraYear for calendars with eras) from
/// `bag` in alphabetical order, converting each as it is read. Required fields are
/// checked by temporal_rs, which knows the calendar's rules, except the time zone of
/// [`FieldSet::ZONED_WITH_TIME_ZONE`]; `partial` asks for
/// a TypeError when no field is present.
pub(super) fn read_fields(
    vm: &mut Vm,
    bag: ObjectId,
    calendar: &Calendar,
    set: FieldSet,
    partial: bool,
) -> JsResult<Fields> {
    let mut f = Fields::default();
    let eras = set.has(FieldSet::YEAR) && has_eras(calendar);
    let time = set.has(FieldSet::TIME);
    macro_rules! read {
        ($name:literal, $wanted:expr, |$v:ident| $convert:expr => $slot:ident) => {
            if $wanted {
                let $v = get(vm, bag, $name)?;
                if !$v.is_undefined() {
                    f.any = true;
                    f.$slot = Some($convert);
                }
            }
        };
    }
    read!("day", set.has(FieldSet::DAY), |v| to_positive_integer_with_truncation(vm, v)? => day);
    read!("era", eras, |v| era(vm, v)? => era);
    read!("eraYear", eras, |v| to_integer_with_truncation(vm, v)? => era_year);
    read!("hour", time, |v| to_integer_with_truncation(vm, v)? => hour);
    read!("microsecond", time, |v| to_integer_with_truncation(vm, v)? => microsecond);
    read!("millisecond", time, |v| to_integer_with_truncation(vm, v)? => millisecond);
    read!("minute", time, |v| to_integer_with_truncation(vm, v)? => minute);
    read!("month", set.has(FieldSet::MONTH), |v| to_positive_integer_with_truncation(vm, v)? => month);
    read!("monthCode", set.has(FieldSet::MONTH_CODE), |v| month_code(vm, v)? => month_code);
    read!("nanosecond", time, |v| to_integer_with_truncation(vm, v)? => nanosecond);
    read!("offset", set.has(FieldSet::OFFSET), |v| offset_string(vm, v)? => offset);
    read!("second", time, |v| to_integer_with_truncation(vm, v)? => second);
    read!("timeZone", set.has(FieldSet::TIME_ZONE), |v| time_zone_identifier(vm, v)? => time_zone);
    // A required field that is absent is a TypeError before the fields after it are read.
    if set.has(FieldSet(128)) && f.time_zone.is_none() {
        return Err(vm.type_error("a ZonedDateTime property bag needs a timeZone"));
    }
    read!("year", set.has(FieldSet::YEAR), |v| to_integer_with_truncation(vm, v)? => year);
    if partial && !f.any {
        return Err(vm.type_error("the property bag has none of the fields it could change"));
    }
    Ok(f)
}

fn era(vm: &mut Vm, v: Value) -> JsResult<TinyAsciiStr<19>> {
    let s = vm.to_string(v)?;
    let s = vm.heap.string_to_rust(s);
    TinyAsciiStr::try_from_str(&s).map_err(|_| vm.range_error(format!("'{s}' is not an era")))
}

/// [ToMonthCode](https://tc39.es/proposal-temporal/#sec-temporal-tomonthcode)
fn month_code(vm: &mut Vm, v: Value) -> JsResult<MonthCode> {
    let p = vm.to_primitive(v, Hint::String)?;
    let Some(s) = p.as_string() else {
        return Err(vm.type_error("monthCode must be a string"));
    };
    let s = vm.heap.string_to_rust(s);
    if s == "M00" {
        return Err(vm.range_error("M00 is not a month code"));
    }
    MonthCode::try_from_utf8(s.as_bytes()).or_throw(vm)
}

/// [ToOffsetString](https://tc39.es/proposal-temporal/#sec-temporal-tooffsetstring)
fn offset_string(vm: &mut Vm, v: Value) -> JsResult<UtcOffset> {
    let p = vm.to_primitive(v, Hint::String)?;
    let Some(s) = p.as_string() else {
        return Err(vm.type_error("offset must be a string"));
    };
    let s = vm.heap.string_to_rust(s);
    UtcOffset::from_utf8(s.as_bytes()).or_throw(vm)
}

impl Fields {
    pub fn calendar_fields(&self) -> CalendarFields {
        let mut c = CalendarFields::new();
        c.year = self.year.map(saturate_i32);
        c.month = self.month.map(|m| m.min(255.0) as u8);
        c.month_code = self.month_code;
        c.day = self.day.map(|d| d.min(255.0) as u8);
        c.era = self.era;
        c.era_year = self.era_year.map(saturate_i32);
        c
    }

    pub fn year_month_fields(&self) -> YearMonthCalendarFields {
        let mut c = YearMonthCalendarFields::new();
        c.year = self.year.map(saturate_i32);
        c.month = self.month.map(|m| m.min(255.0) as u8);
        c.month_code = self.month_code;
        c.era = self.era;
        c.era_year = self.era_year.map(saturate_i32);
        c
    }

    pub fn partial_time(&self, vm: &mut Vm, overflow: Overflow) -> JsResult<PartialTime> {
        let byte = |n: u16| n.min(255) as u8;
        let mut t = PartialTime::new();
        t.hour = time_field(vm, self.hour, overflow)?.map(byte);
        t.minute = time_field(vm, self.minute, overflow)?.map(byte);
        t.second = time_field(vm, self.second, overflow)?.map(byte);
        t.millisecond = time_field(vm, self.millisecond, overflow)?;
        t.microsecond = time_field(vm, self.microsecond, overflow)?;
        t.nanosecond = time_field(vm, self.nanosecond, overflow)?;
        Ok(t)
    }
}

/// [ToTemporalTimeRecord](https://tc39.es/proposal-temporal/#sec-temporal-totemporaltimerecord):
/// the six time fields in alphabetical order, at least one of them present.
pub(super) fn read_time_fields(vm: &mut Vm, bag: ObjectId) -> JsResult<Fields> {
    let f = read_fields(vm, bag, &Calendar::ISO, FieldSet::TIME, false)?;
    if !f.any {
        return Err(vm.type_error(
            "a time property bag needs at least one of hour, minute, second, millisecond, microsecond and nanosecond",
        ));
    }
    Ok(f)
}

// ---- calendars and time zones ----

/// The calendar a Temporal object carries, if `v` is one with a calendar.
pub(super) fn calendar_slot(vm: &Vm, v: Value) -> Option<Calendar> {
    use super::TemporalValue as T;
    match &vm.heap.object(v.as_object()?).kind {
        ObjectKind::Temporal(t) => match &**t {
            T::PlainDate(d) => Some(d.calendar().clone()),
            T::PlainDateTime(d) => Some(d.calendar().clone()),
            T::PlainMonthDay(d) => Some(d.calendar().clone()),
            T::PlainYearMonth(d) => Some(d.calendar().clone()),
            T::ZonedDateTime(d) => Some(d.calendar().clone()),
            _ => None,
        },
        _ => None,
    }
}

/// [ToTemporalCalendarIdentifier](https://tc39.es/proposal-temporal/#sec-temporal-totemporalcalendaridentifier)
pub(super) fn to_calendar(vm: &mut Vm, v: Value) -> JsResult<Calendar> {
    if let Some(c) = calendar_slot(vm, v) {
        return Ok(c);
    }
    let Some(s) = v.as_string() else {
        return Err(
            vm.type_error("a calendar must be a string or a Temporal object with a calendar")
        );
    };
    let s = vm.heap.string_to_rust(s);
    // ParseTemporalCalendarString: an ISO string's calendar annotation (none is
    // ISO 8601), or else the whole string as an identifier.
    match temporal_rs::parsers::parse_allowed_calendar_formats(s.as_bytes()) {
        Some([]) => Ok(Calendar::ISO),
        Some(id) => calendar_from_identifier(vm, id),
        None => calendar_from_identifier(vm, s.as_bytes()),
    }
}

/// [CanonicalizeCalendar](https://tc39.es/proposal-temporal/#sec-temporal-canonicalizecalendar):
/// a RangeError for identifiers Temporal does not support. temporal_rs also accepts
/// "islamic" and "islamic-rgsa", which only Intl.DateTimeFormat takes (as fallbacks).
pub(super) fn calendar_from_identifier(vm: &mut Vm, id: &[u8]) -> JsResult<Calendar> {
    let lower = id.to_ascii_lowercase();
    if lower == b"islamic" || lower == b"islamic-rgsa" {
        let id = String::from_utf8_lossy(id);
        return Err(vm.range_error(format!("'{id}' is not a calendar Temporal supports")));
    }
    Calendar::try_from_utf8(id).or_throw(vm)
}

/// [GetTemporalCalendarIdentifierWithISODefault](https://tc39.es/proposal-temporal/#sec-temporal-gettemporalcalendarslotvaluewithisodefault)
pub(super) fn calendar_with_iso_default(vm: &mut Vm, bag: ObjectId) -> JsResult<Calendar> {
    if let Some(c) = calendar_slot(vm, Value::object(bag)) {
        return Ok(c);
    }
    let v = get(vm, bag, "calendar")?;
    if v.is_undefined() {
        return Ok(Calendar::ISO);
    }
    to_calendar(vm, v)
}

/// [ToTemporalTimeZoneIdentifier](https://tc39.es/proposal-temporal/#sec-temporal-totemporaltimezoneidentifier)
pub(super) fn time_zone_identifier(vm: &mut Vm, v: Value) -> JsResult<TimeZone> {
    if let Some(z) = value_of::<ZonedDateTime>(vm, v) {
        return Ok(*z.time_zone());
    }
    let Some(s) = v.as_string() else {
        return Err(vm.type_error("a time zone must be a string or a Temporal.ZonedDateTime"));
    };
    let s = vm.heap.string_to_rust(s);
    TimeZone::try_from_str(&s).or_throw(vm)
}

/// [IsPartialTemporalObject](https://tc39.es/proposal-temporal/#sec-temporal-ispartialtemporalobject),
/// with its TypeError for the `with` methods.
pub(super) fn partial_temporal_object(vm: &mut Vm, v: Value) -> JsResult<ObjectId> {
    let fail = |vm: &mut Vm| {
        Err(vm.type_error(
            "with() needs a property bag without calendar or timeZone, not a Temporal object",
        ))
    };
    let Some(o) = v.as_object() else {
        return fail(vm);
    };
    if matches!(vm.heap.object(o).kind, ObjectKind::Temporal(_)) {
        return fail(vm);
    }
    if !get(vm, o, "calendar")?.is_undefined() || !get(vm, o, "timeZone")?.is_undefined() {
        return fail(vm);
    }
    Ok(o)
}

/// The string a `from` or conversion was given, or a TypeError (strings are the only
/// primitives Temporal parses).
pub(super) fn required_string(vm: &mut Vm, v: Value, what: &str) -> JsResult<String> {
    match v.as_string() {
        Some(s) => Ok(vm.heap.string_to_rust(s)),
        None => Err(vm.type_error(format!(
            "{what} must be a Temporal object, a property bag or a string"
        ))),
    }
}

// ---- durations ----

/// [ToTemporalDuration](https://tc39.es/proposal-temporal/#sec-temporal-totemporalduration)
pub(super) fn to_duration(vm: &mut Vm, v: Value) -> JsResult<Duration> {
    if let Some(d) = value_of::<Duration>(vm, v) {
        return Ok(d);
    }
    let Some(o) = v.as_object() else {
        let s = required_string(vm, v, "a duration")?;
        return Duration::from_utf8(s.as_bytes()).or_throw(vm);
    };
    let partial = partial_duration(vm, o)?;
    Duration::from_partial_duration(partial).or_throw(vm)
}

/// [ToTemporalPartialDurationRecord](https://tc39.es/proposal-temporal/#sec-temporal-totemporalpartialdurationrecord):
/// the ten fields in alphabetical order, each ToIntegerIfIntegral; none is a TypeError.
pub(super) fn partial_duration(vm: &mut Vm, bag: ObjectId) -> JsResult<PartialDuration> {
    let mut p = PartialDuration::empty();
    macro_rules! read {
        ($name:literal => $slot:ident as $ty:ty) => {
            let v = get(vm, bag, $name)?;
            if !v.is_undefined() {
                let n = to_integer_if_integral(vm, v)?;
                p.$slot = Some(n as $ty);
            }
        };
    }
    read!("days" => days as i64);
    read!("hours" => hours as i64);
    read!("microseconds" => microseconds as i128);
    read!("milliseconds" => milliseconds as i64);
    read!("minutes" => minutes as i64);
    read!("months" => months as i64);
    read!("nanoseconds" => nanoseconds as i128);
    read!("seconds" => seconds as i64);
    read!("weeks" => weeks as i64);
    read!("years" => years as i64);
    if p.is_empty() {
        return Err(vm.type_error("a duration property bag needs at least one duration field"));
    }
    Ok(p)
}

/// [GetTemporalRelativeToOption](https://tc39.es/proposal-temporal/#sec-temporal-gettemporalrelativetooption)
pub(super) fn relative_to(vm: &mut Vm, options: Options) -> JsResult<Option<RelativeTo>> {
    let Some(o) = options else { return Ok(None) };
    let v = get(vm, o, "relativeTo")?;
    if v.is_undefined() {
        return Ok(None);
    }
    // Its fields are read below, which may run JavaScript.
    vm.roots.push(v);
    let Some(obj) = v.as_object() else {
        // 6. Otherwise it must be a string.
        let s = match v.as_string() {
            Some(s) => vm.heap.string_to_rust(s),
            None => {
                return Err(vm.type_error(
                    "relativeTo must be a Temporal object, a property bag or a string",
                ));
            }
        };
        return RelativeTo::try_from_str(&s).map(Some).or_throw(vm);
    };
    // 5.a-c. ZonedDateTime, PlainDate and PlainDateTime values.
    if let Some(z) = value_of::<ZonedDateTime>(vm, v) {
        return Ok(Some(RelativeTo::ZonedDateTime(z)));
    }
    if let Some(d) = value_of::<PlainDate>(vm, v) {
        return Ok(Some(RelativeTo::PlainDate(d)));
    }
    if let Some(d) = value_of::<PlainDateTime>(vm, v) {
        return Ok(Some(RelativeTo::PlainDate(d.to_plain_date())));
    }
    // 5.d-e. A property bag: calendar, then the date, time, offset and timeZone fields.
    let calendar = calendar_with_iso_default(vm, obj)?;
    let fields = read_fields(vm, obj, &calendar, FieldSet::ZONED, false)?;
    zoned_from_fields(
        vm,
        fields,
        calendar,
        Overflow::Constrain,
        Disambiguation::Compatible,
        OffsetDisambiguation::Reject,
    )
    .map(Some)
}

/// A ZonedDateTime (or, without a time zone, a PlainDate) from fields read by
/// [`read_fields`] with [`FieldSet::ZONED`].
fn zoned_from_fields(
    vm: &mut Vm,
    fields: Fields,
    calendar: Calendar,
    overflow: Overflow,
    disambiguation: Disambiguation,
    offset: OffsetDisambiguation,
) -> JsResult<RelativeTo> {
    let calendar_fields = fields.calendar_fields();
    let time = fields.partial_time(vm, overflow)?;
    let Some(time_zone) = fields.time_zone else {
        let mut partial = temporal_rs::partial::PartialDate::new();
        partial.calendar_fields = calendar_fields;
        partial.calendar = calendar;
        return PlainDate::from_partial(partial, Some(overflow))
            .map(RelativeTo::PlainDate)
            .or_throw(vm);
    };
    let partial = zoned_partial(calendar_fields, time, fields.offset, time_zone, calendar);
    ZonedDateTime::from_partial(partial, Some(overflow), Some(disambiguation), Some(offset))
        .map(RelativeTo::ZonedDateTime)
        .or_throw(vm)
}

/// A temporal_rs PartialZonedDateTime.
pub(super) fn zoned_partial(
    calendar_fields: CalendarFields,
    time: PartialTime,
    offset: Option<UtcOffset>,
    time_zone: TimeZone,
    calendar: Calendar,
) -> temporal_rs::partial::PartialZonedDateTime {
    let mut fields = temporal_rs::fields::ZonedDateTimeFields::new();
    fields.calendar_fields = calendar_fields;
    fields.time = time;
    fields.offset = offset;
    let mut partial = temporal_rs::partial::PartialZonedDateTime::new();
    partial.fields = fields;
    partial.timezone = Some(time_zone);
    partial.calendar = calendar;
    partial
}
