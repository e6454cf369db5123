// String normalisation over 2,000 CRM contacts: trim and collapse spaces, Unicode NFC,
// title case, lower-cased e-mails, company slugs without diacritics; then how many
// distinct people and companies remain.
const contacts = await tools.crm.contacts({ count: 2000 });
const clean = (s) => s.normalize("NFC").trim().replace(/\s+/g, " ");
const titleCase = (s) =>
  s
    .split(" ")
    .map((w) => w.split("-").map((p) => (p ? p[0].toUpperCase() + p.slice(1).toLowerCase() : p)).join("-"))
    .join(" ");
const slugify = (s) =>
  s
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
const people = contacts.map((c) => ({
  id: c.id,
  name: titleCase(clean(c.name)),
  email: c.email.trim().toLowerCase(),
  company: clean(c.company),
  companySlug: slugify(c.company),
  phone: c.phone.replace(/\D/g, "").replace(/^1(?=\d{10}$)/, ""),
}));
const emails = new Set(people.map((p) => p.email));
const slugs = {};
for (const p of people) slugs[p.companySlug] = (slugs[p.companySlug] || 0) + 1;
const topCompanies = Object.entries(slugs)
  .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
  .slice(0, 10);
const nonAscii = people.filter((p) => /[^\x00-\x7f]/.test(p.name)).length;
const changed = contacts.filter((c, i) => c.name !== people[i].name).length;
return {
  distinctEmails: emails.size,
  distinctCompanies: Object.keys(slugs).length,
  topCompanies,
  nonAscii,
  changed,
  sample: people.slice(0, 12),
};
