// The trivial handler: a constant JSON response.
export default {
  fetch() {
    return Response.json({ ok: true });
  },
};
