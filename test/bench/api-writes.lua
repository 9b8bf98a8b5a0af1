-- wrk script for the WAL benchmark (test/bench/wal.ts): API writes only, half creates (POST
-- /links) and half updates (PATCH /links/{id} of one of the links created before the load).
--   WRK_OUT=<json out file> wrk -s api-writes.lua ... -- <ids file> <api key>

local counter = 0
local threads = {}

function setup(thread)
  counter = counter + 1
  thread:set("tid", counter)
  table.insert(threads, thread)
end

local ids = {}
local headers = {}
local n = 0

function init(args)
  math.randomseed(2000 + (tid or 0))
  for line in io.lines(args[1]) do ids[#ids + 1] = line end
  headers["Authorization"] = "Bearer " .. args[2]
  headers["Content-Type"] = "application/json"
end

function request()
  n = n + 1
  if n % 2 == 0 then
    local id = ids[math.random(#ids)]
    return wrk.format("PATCH", "/api/v1/links/" .. id, headers, string.format('{"title":"t%d-%d"}', tid, n))
  end
  return wrk.format("POST", "/api/v1/links", headers,
    string.format('{"destination":"https://example.com/articles/%d/%d?ref=load","title":"load %d"}', tid, n, n))
end

function done(summary, latency, requests)
  local e = summary.errors
  local f = io.open(os.getenv("WRK_OUT"), "w")
  f:write(string.format(
    '{"requests":%d,"duration_us":%d,"status_errors":%d,"timeouts":%d,"connect_errors":%d,"read_errors":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.status, e.timeout, e.connect, e.read,
    latency:percentile(50), latency:percentile(99), latency.max))
  f:close()
end
