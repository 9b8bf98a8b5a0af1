-- wrk script for the redirect benchmark (test/bench/redirect.ts).
-- Each thread pre-builds one request per slug, in its own shuffled order, with realistic mixed
-- headers: ~15% crawler/tool agents, varied referrers and languages, and client addresses in
-- X-Forwarded-For (Slink runs with SLINK_TRUST_PROXY=1): mostly repeat visitors from a pool of
-- 20,000, a fifth new ones. Pre-building keeps wrk's own CPU per request as low as possible, so
-- both servers are measured against the same load generator.
-- With "zipf" after the slugs file, each thread draws its requests from a Zipf distribution
-- (s = 1) over its shuffled links instead: the k-th link gets clicks in proportion to 1/k, as
-- real short-link traffic concentrates on a few links.
-- A line of the slugs file may name the Host its request is sent with after the slug and a space
-- (several short domains: each link asked for on its own domain).
--   WRK_OUT=<json out file> wrk -s redirect.lua ... -- <slugs file> [zipf]

local agents = {
  {60, {
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
    "Mozilla/5.0 (iPad; CPU OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 340.0.0.22.109",
  }},
  {25, {
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36",
  }},
  {15, {
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
    "Twitterbot/1.0",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "curl/8.5.0",
    "python-requests/2.32.3",
    "WhatsApp/2.23.20.0",
    "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
  }},
}
local referrers = {
  false, false, false,
  "https://www.google.com/", "https://t.co/", "https://www.facebook.com/", "https://l.instagram.com/",
  "https://news.ycombinator.com/", "https://www.reddit.com/r/programming/", "https://mail.google.com/",
  "https://www.linkedin.com/", "https://duckduckgo.com/", "https://blog.example.org/2026/launch",
}
local languages = { "en-US,en;q=0.9", "en-GB,en;q=0.8", "de-DE,de;q=0.9,en;q=0.5", "fr-FR,fr;q=0.9", "es-ES,es;q=0.8", "ja,en;q=0.5", "pt-BR,pt;q=0.9", false }

local counter = 0
local threads = {}

function setup(thread)
  counter = counter + 1
  thread:set("tid", counter)
  table.insert(threads, thread)
end

local function pick(list) return list[math.random(#list)] end

local function agent()
  local r = math.random(100)
  for _, group in ipairs(agents) do
    if r <= group[1] then return pick(group[2]) end
    r = r - group[1]
  end
  return pick(agents[1][2])
end

local function address()
  local n
  if math.random(5) == 1 then n = math.random(16777216, 3758096383) -- a new visitor
  else n = 16777216 + math.random(20000) * 104729 end                -- a repeat visitor
  return string.format("%d.%d.%d.%d", math.floor(n / 16777216) % 256, math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
end

local requests = {}
local index = 0

function init(args)
  math.randomseed(1000 + (tid or 0))
  local slugs = {}
  for line in io.lines(args[1]) do slugs[#slugs + 1] = line end
  for i = #slugs, 2, -1 do -- Fisher-Yates: each thread walks the links in its own order
    local j = math.random(i)
    slugs[i], slugs[j] = slugs[j], slugs[i]
  end
  local zipf = args[2] == "zipf"
  local cumulative = {}
  if zipf then
    local sum = 0
    for k = 1, #slugs do sum = sum + 1 / k; cumulative[k] = sum end
  end
  for i = 1, #slugs do
    local slug = slugs[i]
    if zipf then -- the first k whose cumulative weight reaches a uniform draw
      local u, lo, hi = math.random() * cumulative[#slugs], 1, #slugs
      while lo < hi do
        local mid = math.floor((lo + hi) / 2)
        if cumulative[mid] < u then lo = mid + 1 else hi = mid end
      end
      slug = slugs[lo]
    end
    local name, host = slug:match("^(%S+) (%S+)$")
    if name then slug = name end
    local path = "/" .. slug
    local r = math.random(20)
    if r == 1 then path = path .. "/tw" elseif r == 2 then path = path .. "/nope" end
    local headers = { ["User-Agent"] = agent(), ["X-Forwarded-For"] = address(), ["Accept"] = "text/html,*/*;q=0.8" }
    if host then headers["Host"] = host end
    local ref = pick(referrers)
    if ref then headers["Referer"] = ref end
    local lang = pick(languages)
    if lang then headers["Accept-Language"] = lang end
    requests[i] = wrk.format("GET", path, headers)
  end
end

function request()
  index = index + 1
  if index > #requests then index = 1 end
  return requests[index]
end

function done(summary, latency, _)
  local e = summary.errors
  local f = io.open(os.getenv("WRK_OUT"), "w")
  f:write(string.format(
    '{"requests":%d,"duration_us":%d,"bytes":%d,"connect_errors":%d,"read_errors":%d,"write_errors":%d,"status_errors":%d,"timeouts":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
  f:close()
end
