// encodeURI / decodeURI and friends; Annex B escape / unescape.
print(encodeURIComponent('a b&ü😀')) // expect: a%20b%26%C3%BC%F0%9F%98%80
print(encodeURI('http://x/a b?q=1&r=[2]#h')) // expect: http://x/a%20b?q=1&r=%5B2%5D#h
print(decodeURIComponent('%E2%82%AC%20%23'), decodeURI('%E2%82%AC%20%23')) // expect: € # € %23
print(decodeURIComponent('%F0%9F%98%80') === '😀') // expect: true
for (const bad of ['%', '%E2%82', '%C0%80', '%ED%A0%80', '%zz']) {
  try { decodeURIComponent(bad); print('no error') } catch (e) { print(e.name) }
}
// expect: URIError
// expect: URIError
// expect: URIError
// expect: URIError
// expect: URIError
try { encodeURIComponent('\ud800') } catch (e) { print(e.name) } // expect: URIError
print(encodeURIComponent('\ud83d\ude00'), encodeURI(';/?:@&=+$,#'), encodeURIComponent(';/?:@&=+$,#')) // expect: %F0%9F%98%80 ;/?:@&=+$,# %3B%2F%3F%3A%40%26%3D%2B%24%2C%23
print(escape('a b+ü\u0100@*_-./'), unescape('%u0100%41%zz%u12')) // expect: a%20b+%FC%u0100@*_-./ ĀA%zz%u12
