//! `Temporal.PlainDate` ([spec](https://tc39.es/proposal-temporal/#sec-temporal-plaindate-objects)).

use super::options::UnitGroup;
use super::options::{
    self, FieldSet, calendar_with_iso_default, get, options_object, overflow,
    partial_temporal_object, read_fields, required_string, time_zone_identifier, to_calendar,
    to_integer_with_truncation,
};
use super::plain_time::time_or_midnight;
use super::{
    Difference, OrThrow, TypeSpec, add_methods, calendar_string_methods, create, date_getters,
    difference_methods, this_value, value_of,
};
use crate::JsResult;
use crate::interpreter::{Args, Vm};
use crate::value::Value;
use temporal_rs::TemporalResult;
use temporal_rs::options::DifferenceSettings;
use temporal_rs::partial::PartialDate;
use temporal_rs::{Calendar, Duration, PlainDate, PlainDateTime, ZonedDateTime};

pub(super) const SPEC: TypeSpec = TypeSpec {
    name: "PlainDate",
    tag: "Temporal.PlainDate",
    constructor,
    length: 3,
    statics: &[("from", from, 1), ("compare", compare, 2)],
    getters: &[&date_getters::<PlainDate>()],
    methods: &[
        &calendar_string_methods::<PlainDate>(),
        &difference_methods::<PlainDate>(),
        &add_methods::<PlainDate>(),
        &[
            ("toPlainYearMonth", to_plain_year_month, 0),
            ("toPlainMonthDay", to_plain_month_day, 0),
            ("with", with, 1),
            ("withCalendar", with_calendar, 1),
            ("equals", equals, 1),
            ("toPlainDateTime", to_plain_date_time, 0),
            ("toZonedDateTime", to_zoned_date_time, 1),
        ],
    ],
};

/// A calendar argument of a constructor: undefined is ISO 8601, anything but a string
/// a TypeError, and the string a calendar identifier (CanonicalizeCalendar).
pub(super) fn constructor_calendar(vm: &mut Vm, v: Value) -> JsResult<Calendar> {
    if v.is_undefined() {
        return Ok(Calendar::ISO);
    }
    let Some(s) = v.as_string() else {
        return Err(vm.type_error("the calendar must be a string"));
    };
    let s = vm.heap.string_to_rust(s);
    options::calendar_from_identifier(vm, s.as_bytes())
}

/// [Temporal.PlainDate](https://tc39.es/proposal-temporal/#sec-temporal.plaindate)
fn constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    if args.new_target.is_undefined() {
        return Err(vm.type_error("Temporal.PlainDate must be called with new"));
    }
    // 2-4. ToIntegerWithTruncation of year, month and day.
    let y = to_integer_with_truncation(vm, vm.arg(args, 0))?;
    let m = to_integer_with_truncation(vm, vm.arg(args, 1))?;
    let d = to_integer_with_truncation(vm, vm.arg(args, 2))?;
    // 5-7. The calendar.
    let calendar = constructor_calendar(vm, vm.arg(args, 3))?;
    // 8. If IsValidISODate(y, m, d) is false, throw a RangeError exception.
    let date = PlainDate::try_new(
        options::saturate_i32(y),
        m.clamp(0.0, 255.0) as u8,
        d.clamp(0.0, 255.0) as u8,
        calendar,
    )
    .or_throw(vm)?;
    create(vm, date, args.new_target)
}

/// [ToTemporalDate](https://tc39.es/proposal-temporal/#sec-temporal-totemporaldate)
pub(super) fn to_plain_date(vm: &mut Vm, item: Value, options: Value) -> JsResult<PlainDate> {
    if let Some(obj) = item.as_object() {
        // 2.a-c. Temporal objects with a date: the options are still read.
        let date = if let Some(d) = value_of::<PlainDate>(vm, item) {
            Some(d)
        } else if let Some(z) = value_of::<ZonedDateTime>(vm, item) {
            Some(z.to_plain_date())
        } else {
            value_of::<PlainDateTime>(vm, item).map(|d| d.to_plain_date())
        };
        if let Some(date) = date {
            let options = options_object(vm, options)?;
            overflow(vm, options)?;
            return Ok(date);
        }
        // 2.d-h. A property bag: calendar, fields, then options.
        let calendar = calendar_with_iso_default(vm, obj)?;
        let fields = read_fields(vm, obj, &calendar, FieldSet::DATE, false)?;
        let options = options_object(vm, options)?;
        let overflow = overflow(vm, options)?;
        let mut partial = PartialDate::new();
        partial.calendar_fields = fields.calendar_fields();
        partial.calendar = calendar;
        return PlainDate::from_partial(partial, Some(overflow)).or_throw(vm);
    }
    // 3-9. A string, parsed before the options are read.
    let s = required_string(vm, item, "a date")?;
    let date = PlainDate::from_utf8(s.as_bytes()).or_throw(vm)?;
    let options = options_object(vm, options)?;
    overflow(vm, options)?;
    Ok(date)
}

/// [Temporal.PlainDate.from](https://tc39.es/proposal-temporal/#sec-temporal.plaindate.from)
fn from(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let date = to_plain_date(vm, vm.arg(args, 0), vm.arg(args, 1))?;
    create(vm, date, Value::UNDEFINED)
}

/// [Temporal.PlainDate.compare](https://tc39.es/proposal-temporal/#sec-temporal.plaindate.compare)
fn compare(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let one = to_plain_date(vm, vm.arg(args, 0), Value::UNDEFINED)?;
    let two = to_plain_date(vm, vm.arg(args, 1), Value::UNDEFINED)?;
    Ok(Value::int(one.compare_iso(&two) as i32))
}

fn this_date(vm: &mut Vm, this: Value, method: &str) -> JsResult<PlainDate> {
    this_value::<PlainDate>(vm, this, method)
}

/// [Temporal.PlainDate.prototype.toPlainYearMonth](https://tc39.es/proposal-temporal/#sec-temporal.plaindate.prototype.toplainyearmonth)
fn to_plain_year_month(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let d = this_date(vm, this, "toPlainYearMonth")?;
    let ym = d.to_plain_year_month().or_throw(vm)?;
    create(vm, ym, Value::UNDEFINED)
}

/// [Temporal.PlainDate.prototype.toPlainMonthDay](https://tc39.es/proposal-temporal/#sec-temporal.plaindate.prototype.toplainmonthday)
fn to_plain_month_day(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let d = this_date(vm, this, "toPlainMonthDay")?;
    let md = d.to_plain_month_day().or_throw(vm)?;
    create(vm, md, Value::UNDEFINED)
}

/// [Temporal.PlainDate.prototype.with](https://tc39.es/proposal-temporal/#sec-temporal.plaindate.prototype.with)
fn with(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let d = this_date(vm, this, "with")?;
    // 3. If ? IsPartialTemporalObject(temporalDateLike) is false, throw a TypeError exception.
    let bag = partial_temporal_object(vm, vm.arg(args, 0))?;
    // 6. Let partialDate be ? PrepareCalendarFields(calendar, temporalDateLike, ..., partial).
    let fields = read_fields(vm, bag, d.calendar(), FieldSet::DATE, true)?;
    // 8-9. The options.
    let options = options_object(vm, vm.arg(args, 1))?;
    let overflow = overflow(vm, options)?;
    let result = d
        .with(fields.calendar_fields(), Some(overflow))
        .or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.PlainDate.prototype.withCalendar](https://tc39.es/proposal-temporal/#sec-temporal.plaindate.prototype.withcalendar)
fn with_calendar(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let d = this_date(vm, this, "withCalendar")?;
    let calendar = to_calendar(vm, vm.arg(args, 0))?;
    create(vm, d.with_calendar(calendar), Value::UNDEFINED)
}

/// [Temporal.PlainDate.prototype.equals](https://tc39.es/proposal-temporal/#sec-temporal.plaindate.prototype.equals)
fn equals(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let d = this_date(vm, this, "equals")?;
    let other = to_plain_date(vm, vm.arg(args, 0), Value::UNDEFINED)?;
    Ok(Value::bool(d == other))
}

/// [Temporal.PlainDate.prototype.toPlainDateTime](https://tc39.es/proposal-temporal/#sec-temporal.plaindate.prototype.toplaindatetime)
fn to_plain_date_time(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let d = this_date(vm, this, "toPlainDateTime")?;
    // 3. Let time be ? ToTimeRecordOrMidnight(temporalTime).
    let time = vm.arg(args, 0);
    let time = time_or_midnight(vm, time)?;
    let result = d.to_plain_date_time(time).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.PlainDate.prototype.toZonedDateTime](https://tc39.es/proposal-temporal/#sec-temporal.plaindate.prototype.tozoneddatetime)
fn to_zoned_date_time(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let d = this_date(vm, this, "toZonedDateTime")?;
    let item = vm.arg(args, 0);
    // 3. An object: its timeZone (or the object itself) and its plainTime.
    let (time_zone, time) = match item.as_object() {
        Some(obj) if value_of::<ZonedDateTime>(vm, item).is_none() => {
            let like = get(vm, obj, "timeZone")?;
            if like.is_undefined() {
                (time_zone_identifier(vm, item)?, Value::UNDEFINED)
            } else {
                let zone = time_zone_identifier(vm, like)?;
                let time = get(vm, obj, "plainTime")?;
                // The time is read as a property bag below, which may run JavaScript.
                vm.roots.push(time);
                (zone, time)
            }
        }
        // 4. Otherwise a time zone identifier.
        _ => (time_zone_identifier(vm, item)?, Value::UNDEFINED),
    };
    let time = time_or_midnight(vm, time)?;
    let result = d.to_zoned_date_time(time_zone, time).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

impl Difference for PlainDate {
    const UNITS: UnitGroup = UnitGroup::Date;
    fn convert(vm: &mut Vm, other: Value) -> JsResult<Self> {
        to_plain_date(vm, other, Value::UNDEFINED)
    }
    fn until(&self, other: &Self, settings: DifferenceSettings) -> TemporalResult<Duration> {
        PlainDate::until(self, other, settings)
    }
    fn since(&self, other: &Self, settings: DifferenceSettings) -> TemporalResult<Duration> {
        PlainDate::since(self, other, settings)
    }
    fn calendar_year(&self) -> Option<(&temporal_rs::Calendar, i32)> {
        Some((self.calendar(), self.year()))
    }
}
