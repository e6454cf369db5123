// Parallel host calls suspend together; the result is returned after the awaits.
// capability: tools.weather
// answer: {"id":2,"ok":{"temp":15}}
// answer: {"id":1,"ok":{"temp":21}}
const cities = ["Lyon", "Oslo"];
const reports = await Promise.all(cities.map((city) => tools.weather(city)));
const warmest = cities[reports.findIndex((r) => r.temp === Math.max(...reports.map((r) => r.temp)))];
return `${warmest} is warmest`;
// expect: {"type":"suspended","calls":[{"id":1,"capability":"tools.weather","args":["Lyon"]},{"id":2,"capability":"tools.weather","args":["Oslo"]}]}
// expect: {"type":"suspended","calls":[{"id":1,"capability":"tools.weather","args":["Lyon"]}]}
// expect: {"type":"complete","value":"Lyon is warmest"}
