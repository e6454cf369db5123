-- wrk script: every response's status and body are compared with the expected ones
-- (BENCH_EXPECT, a file); with BENCH_BODY, each request POSTs that file as JSON.
local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

local expected = read(os.getenv("BENCH_EXPECT"))
local body_file = os.getenv("BENCH_BODY")
if body_file and body_file ~= "" then
  wrk.method = "POST"
  wrk.body = read(body_file)
  wrk.headers["Content-Type"] = "application/json"
end

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

bad = 0
function response(status, headers, body)
  if status ~= 200 or body ~= expected then
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do
    total = total + t:get("bad")
  end
  io.write(string.format("BAD %d\n", total))
  io.write(string.format("P50 %d\nP99 %d\n", latency:percentile(50), latency:percentile(99)))
end
