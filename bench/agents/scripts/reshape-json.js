// JSON-heavy reshaping of 300 nested repositories (GitHub-like, with their tickets):
// flatten tickets into rows, pivot labels per owner, re-nest by owner, and measure
// the serialized forms.
const repos = await tools.listRepos({ count: 300 });
const rows = repos.flatMap((r) =>
  r.tickets.map((i) => ({
    repo: `${r.owner.login}/${r.name}`,
    number: i.number,
    state: i.state,
    labels: i.labels.map((l) => l.name),
    assignee: i.assignees.length > 0 ? i.assignees[0].login : null,
    created: i.created_at.slice(0, 10),
    reactions: Object.values(i.reactions).reduce((a, b) => a + b, 0),
  })),
);
const owners = {};
for (const r of repos) {
  const o = owners[r.owner.login] || (owners[r.owner.login] = { login: r.owner.login, kind: r.owner.type.toLowerCase(), repos: [], stars: 0, labels: {} });
  o.stars += r.stats.stars;
  o.repos.push({ name: r.name, stars: r.stats.stars, license: r.license ? r.license.key : "none", open: r.tickets.filter((i) => i.state === "open").length });
  for (const i of r.tickets) for (const l of i.labels) o.labels[l.name] = (o.labels[l.name] || 0) + 1;
}
const ownerList = Object.values(owners)
  .map((o) => ({ ...o, repos: o.repos.sort((a, b) => b.stars - a.stars || (a.name < b.name ? -1 : 1)).slice(0, 3) }))
  .sort((a, b) => b.stars - a.stars || (a.login < b.login ? -1 : 1));
const byLabel = {};
for (const row of rows) {
  for (const l of row.labels.length > 0 ? row.labels : ["(none)"]) {
    const entry = byLabel[l] || (byLabel[l] = { open: 0, closed: 0, repos: {} });
    entry[row.state]++;
    entry.repos[row.repo] = true;
  }
}
const labelTable = Object.entries(byLabel)
  .map(([label, e]) => ({ label, open: e.open, closed: e.closed, repos: Object.keys(e.repos).length }))
  .sort((a, b) => (a.label < b.label ? -1 : 1));
const copy = JSON.parse(JSON.stringify(repos));
copy.forEach((r) => {
  r.full_name = `${r.owner.login}/${r.name}`;
  r.tickets = r.tickets.length;
});
const compact = JSON.stringify(copy);
return {
  repos: repos.length,
  tickets: rows.length,
  bytes: { original: JSON.stringify(repos).length, compact: compact.length, rows: JSON.stringify(rows).length },
  topOwners: ownerList.slice(0, 5),
  labelTable,
  busiest: rows
    .filter((r) => r.state === "open")
    .sort((a, b) => b.reactions - a.reactions || (a.repo < b.repo ? -1 : a.repo > b.repo ? 1 : a.number - b.number))
    .slice(0, 5),
  firstCompact: compact.slice(0, 200),
};
