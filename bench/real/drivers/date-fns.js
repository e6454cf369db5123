// date-fns: formatting, parsing and calendar arithmetic over generated dates.
var random = new Random(31);
var h = 0x811c9dc5;
var total = 0;
for (var i = 0; i < 6000; i++) {
  var date = new Date(2000 + random.int(40), random.int(12), 1 + random.int(28), random.int(24), random.int(60));
  var later = dateFns.addBusinessDays(dateFns.addMonths(date, random.int(30)), random.int(40));
  total += dateFns.differenceInCalendarDays(later, date) + dateFns.getISOWeek(later);
  var text = dateFns.format(later, "yyyy-MM-dd'T'HH:mm EEEE do MMMM QQQ");
  var back = dateFns.parse(dateFns.format(later, "yyyy-MM-dd HH:mm"), "yyyy-MM-dd HH:mm", date);
  total += dateFns.isEqual(back, later) ? 1 : 0;
  h = hash(text + dateFns.formatDistanceStrict(date, later), h);
}
var days = dateFns.eachDayOfInterval({ start: new Date(2020, 0, 1), end: new Date(2024, 11, 31) });
var weekends = days.filter(dateFns.isWeekend).length;
emit("date-fns " + total + " " + days.length + " " + weekends + " " + hex(h));
