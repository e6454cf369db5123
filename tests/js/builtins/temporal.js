// Temporal: each type, its conversions, options and errors.
const err = f => { try { f(); return 'no error'; } catch (e) { return e.constructor.name; } };

// Duration
const d = new Temporal.Duration(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
print(d.toString(), d.sign, d.blank, d.negated().toString(), d.negated().abs().days) // expect: P1Y2M3W4DT5H6M7.00800901S 1 false -P1Y2M3W4DT5H6M7.00800901S 4
print(Temporal.Duration.from('PT36H').round({ largestUnit: 'day' }).toString()) // expect: P1DT12H
print(Temporal.Duration.from({ hours: 1, minutes: 30 }).total('minutes')) // expect: 90
print(Temporal.Duration.from({ months: 1 }).total({ unit: 'days', relativeTo: '2024-02-01' })) // expect: 29
print(Temporal.Duration.compare({ days: 1 }, { hours: 24 }), Temporal.Duration.compare({ months: 1 }, { days: 30 }, { relativeTo: '2024-02-01' })) // expect: 0 -1
print(Temporal.Duration.from({ seconds: 1, milliseconds: 234 }).toString({ fractionalSecondDigits: 1 }), new Temporal.Duration().toString()) // expect: PT1.2S PT0S
print(d.with({ years: 0, nanoseconds: 0 }).toString(), Temporal.Duration.from({ hours: 1 }).add({ minutes: 90 }).toString()) // expect: P2M3W4DT5H6M7.008009S PT2H30M
print(err(() => new Temporal.Duration(1, -1)), err(() => new Temporal.Duration(0.5)), err(() => Temporal.Duration(1)), err(() => Temporal.Duration.from({}))) // expect: RangeError RangeError TypeError TypeError
print(err(() => d.add({ days: 1 })), err(() => d.toString({ smallestUnit: 'minute' })), err(() => d + 1)) // expect: RangeError RangeError TypeError

// PlainDate
const date = new Temporal.PlainDate(2024, 2, 29);
print(date.toString(), date.dayOfWeek, date.dayOfYear, date.weekOfYear, date.daysInMonth, date.inLeapYear, date.monthCode) // expect: 2024-02-29 4 60 9 29 true M02
print(date.add({ years: 1 }).toString(), err(() => date.add({ years: 1 }, { overflow: 'reject' }))) // expect: 2025-02-28 RangeError
print(date.until('2025-03-01', { largestUnit: 'months' }).toString(), date.since('2024-01-01').toString()) // expect: P12M1D P59D
print(date.with({ day: 31 }).toString(), date.with({ month: 4 }, { overflow: 'constrain' }).toString(), err(() => date.with({ calendar: 'iso8601' }))) // expect: 2024-02-29 2024-04-29 TypeError
print(Temporal.PlainDate.from({ year: 5784, monthCode: 'M05L', day: 1, calendar: 'hebrew' }).toString()) // expect: 2024-02-10[u-ca=hebrew]
print(date.withCalendar('japanese').era, date.withCalendar('japanese').eraYear, date.toString({ calendarName: 'always' })) // expect: reiwa 6 2024-02-29[u-ca=iso8601]
print(Temporal.PlainDate.compare('2024-01-01', date), date.equals('2024-02-29'), date.toPlainYearMonth().toString(), date.toPlainMonthDay().toString()) // expect: -1 true 2024-02 02-29
print(date.toPlainDateTime('12:30').toString(), date.toZonedDateTime({ timeZone: 'Asia/Tokyo', plainTime: '09:00' }).toString()) // expect: 2024-02-29T12:30:00 2024-02-29T09:00:00+09:00[Asia/Tokyo]
print(err(() => Temporal.PlainDate.from('2024-02-30')), err(() => Temporal.PlainDate.from(20240229)), err(() => new Temporal.PlainDate(2024, 13, 1))) // expect: RangeError TypeError RangeError

// PlainTime
const time = Temporal.PlainTime.from('12:34:56.789');
print(time.toString(), time.hour, time.millisecond, time.round('minute').toString(), time.toString({ smallestUnit: 'second' })) // expect: 12:34:56.789 12 789 12:35:00 12:34:56
print(time.add({ hours: 12 }).toString(), time.until('13:00').toString(), time.with({ second: 0 }).toString()) // expect: 00:34:56.789 PT25M3.211S 12:34:00.789
print(Temporal.PlainTime.from({ hour: 24, minute: 61 }).toString(), err(() => Temporal.PlainTime.from({ hour: 24 }, { overflow: 'reject' })), err(() => Temporal.PlainTime.from({ hour: -1 }, { overflow: 'reject' }))) // expect: 23:59:00 RangeError RangeError
print(time.round({ smallestUnit: 'hour', roundingMode: 'floor' }).toString(), err(() => time.round({ smallestUnit: 'day' }))) // expect: 12:00:00 RangeError

// PlainDateTime
const dt = Temporal.PlainDateTime.from('2024-03-10T01:30:15');
print(dt.toString(), dt.round({ smallestUnit: 'hour', roundingMode: 'halfExpand' }).toString(), dt.toPlainDate().toString()) // expect: 2024-03-10T01:30:15 2024-03-10T02:00:00 2024-03-10
print(dt.withPlainTime().toString(), dt.with({ hour: 23 }).toString(), dt.add({ days: 1, hours: 23 }).toString()) // expect: 2024-03-10T00:00:00 2024-03-10T23:30:15 2024-03-12T00:30:15
print(dt.toZonedDateTime('America/New_York').toString(), dt.add({ hours: 1 }).toZonedDateTime('America/New_York', { disambiguation: 'later' }).toString()) // expect: 2024-03-10T01:30:15-05:00[America/New_York] 2024-03-10T03:30:15-04:00[America/New_York]
print(dt.toString({ fractionalSecondDigits: 3, calendarName: 'critical' }), dt.until('2025-01-01T00:00', { largestUnit: 'year', smallestUnit: 'day' }).toString()) // expect: 2024-03-10T01:30:15.000[!u-ca=iso8601] P9M21D

// Instant
const instant = Temporal.Instant.from('2024-01-01T00:00:00.123456789+01:00');
print(instant.toString(), instant.epochMilliseconds, instant.epochNanoseconds) // expect: 2023-12-31T23:00:00.123456789Z 1704063600123 1704063600123456789n
print(instant.toString({ timeZone: 'Asia/Kolkata', smallestUnit: 'millisecond' }), instant.round({ smallestUnit: 'second', roundingMode: 'ceil' }).toString()) // expect: 2024-01-01T04:30:00.123+05:30 2023-12-31T23:00:01Z
print(Temporal.Instant.fromEpochMilliseconds(0).toString(), new Temporal.Instant(-1n).toString(), new Date(1e12).toTemporalInstant().toString()) // expect: 1970-01-01T00:00:00Z 1969-12-31T23:59:59.999999999Z 2001-09-09T01:46:40Z
print(instant.until('2024-01-02T00:00Z', { largestUnit: 'hours' }).toString(), err(() => instant.add({ days: 1 })), err(() => new Temporal.Instant(10n ** 30n))) // expect: PT24H59M59.876543211S RangeError RangeError

// ZonedDateTime
const zdt = Temporal.ZonedDateTime.from('2024-03-10T01:30[America/New_York]');
print(zdt.toString(), zdt.offset, zdt.hoursInDay, zdt.timeZoneId, zdt.epochMilliseconds) // expect: 2024-03-10T01:30:00-05:00[America/New_York] -05:00 23 America/New_York 1710052200000
print(zdt.add({ hours: 1 }).toString(), zdt.add({ days: 1 }).toString(), zdt.startOfDay().toString()) // expect: 2024-03-10T03:30:00-04:00[America/New_York] 2024-03-11T01:30:00-04:00[America/New_York] 2024-03-10T00:00:00-05:00[America/New_York]
print(zdt.getTimeZoneTransition('next').toString(), zdt.withTimeZone('Europe/London').toString()) // expect: 2024-03-10T03:00:00-04:00[America/New_York] 2024-03-10T06:30:00+00:00[Europe/London]
print(zdt.with({ hour: 2, minute: 30 }).toString(), err(() => zdt.with({ hour: 2, minute: 30 }, { disambiguation: 'reject' }))) // expect: 2024-03-10T03:30:00-04:00[America/New_York] RangeError
print(zdt.toString({ offset: 'never', timeZoneName: 'never', smallestUnit: 'minute' }), zdt.until('2024-11-03T12:00[America/New_York]', { largestUnit: 'days' }).toString()) // expect: 2024-03-10T01:30 P238DT11H30M
print(Temporal.ZonedDateTime.from({ year: 2024, month: 11, day: 3, hour: 1, minute: 30, timeZone: 'America/New_York', offset: '-05:00' }).toString()) // expect: 2024-11-03T01:30:00-05:00[America/New_York]
print(err(() => Temporal.ZonedDateTime.from('2024-11-03T01:30-03:00[America/New_York]')), err(() => Temporal.ZonedDateTime.from({ year: 2024, month: 1, day: 1 }))) // expect: RangeError TypeError
print(new Temporal.ZonedDateTime(0n, '+05:30').toString(), err(() => new Temporal.ZonedDateTime(0n, '2020-01-01T00:00Z[UTC]'))) // expect: 1970-01-01T05:30:00+05:30[+05:30] RangeError

// PlainYearMonth and PlainMonthDay
const ym = Temporal.PlainYearMonth.from('2024-02');
print(ym.toString(), ym.daysInMonth, ym.add({ months: 11 }).toString(), ym.until('2025-05', { largestUnit: 'years' }).toString(), ym.toPlainDate({ day: 29 }).toString()) // expect: 2024-02 29 2025-01 P1Y3M 2024-02-29
print(err(() => ym.until('2025-05', { smallestUnit: 'days' })), new Temporal.PlainYearMonth(2024, 2, 'iso8601', 15).toString({ calendarName: 'always' })) // expect: RangeError 2024-02-15[u-ca=iso8601]
const md = Temporal.PlainMonthDay.from({ monthCode: 'M02', day: 29 });
print(md.toString(), md.toPlainDate({ year: 2023 }).toString(), md.with({ day: 1 }).toString(), md.equals('02-29')) // expect: 02-29 2023-02-28 02-01 true

// Temporal.Now reads Kiln's clock; the system time zone is UTC
print(Temporal.Now.timeZoneId(), Temporal.Now.zonedDateTimeISO().timeZoneId, Temporal.Now.instant() instanceof Temporal.Instant) // expect: UTC UTC true
print(Math.abs(Temporal.Now.instant().epochMilliseconds - Date.now()) < 1000) // expect: true

// property bags and options are read in the specification's order
const reads = [];
const bag = new Proxy({ year: 2024, month: 5, day: 6, hour: 7 }, {
  get(target, key) { reads.push(key); return target[key]; },
});
const opts = new Proxy({ overflow: 'reject' }, { get(target, key) { reads.push(key); return target[key]; } });
Temporal.PlainDateTime.from(bag, opts);
print(reads.join()) // expect: calendar,day,hour,microsecond,millisecond,minute,month,monthCode,nanosecond,second,year,overflow
reads.length = 0;
print(err(() => Temporal.ZonedDateTime.from(bag)), reads.join()) // expect: TypeError calendar,day,hour,microsecond,millisecond,minute,month,monthCode,nanosecond,offset,second,timeZone
reads.length = 0;
Temporal.Duration.from({ days: 1 }).round(new Proxy({ smallestUnit: 'hours', largestUnit: 'days' }, { get(t, k) { reads.push(k); return t[k]; } }));
print(reads.join()) // expect: largestUnit,relativeTo,roundingIncrement,roundingMode,smallestUnit

// descriptors, names and lengths
const desc = Object.getOwnPropertyDescriptor(Temporal, 'PlainDate');
print(desc.writable, desc.enumerable, desc.configurable, Temporal.PlainDate.length, Temporal.PlainDate.prototype.add.length, Temporal.ZonedDateTime.length) // expect: true false true 3 1 2
print(Object.getOwnPropertyDescriptor(Temporal.PlainDate.prototype, 'year').get.name, Temporal.PlainDate.prototype[Symbol.toStringTag], String(Temporal.Now)) // expect: get year Temporal.PlainDate [object Temporal.Now]
print(err(() => Temporal.PlainDate.prototype.year), err(() => Temporal.PlainDate.prototype.toString.call(time)), JSON.stringify({ date, d })) // expect: TypeError TypeError {"date":"2024-02-29","d":"P1Y2M3W4DT5H6M7.00800901S"}
print(date.toLocaleString(), time.toLocaleString() === time.toString()) // expect: 2024-02-29 true
