// An agent script's `return` at the top level is the execution's result.
const answer = 6 * 7;
return answer;
// expect: {"type":"complete","value":42}
