-- wrk script for scripts/bench.sh: one file for every measured path, chosen by BENCH_MODE. Each thread takes its own
-- slice of the token file; every reply is parsed and judged (a benchmark that measures errors is wrong), and done()
-- prints one machine-readable line:
--   BENCH rps=… p50_us=… p99_us=… requests=… ok=… bad=… non2xx=… socket_errors=… timeouts=… used=… pool=… exhausted=…
-- Environment: BENCH_MODE, BENCH_FILE (tokens, one a line), BENCH_THREADS (wrk -t), BENCH_ROUND/BENCH_ROUNDS (the
-- one-use pools, refresh and code, take slice ROUND of ROUNDS so no round presents a token an earlier one used),
-- BENCH_BASIC (introspection's and the server API's Basic credentials), BENCH_AUDIENCE (/verify), BENCH_ETAG (If-None-Match value),
-- BENCH_EXPECT_304 (1 when the page sends an ETag, so a conditional request must be answered 304).

local mode = os.getenv("BENCH_MODE") or "bare"
local form = { ["Content-Type"] = "application/x-www-form-urlencoded" }
local page = "/flows/webViewSignIn?client_id=demo-mobile-app"
local web_view = { ["Accept-Encoding"] = "gzip, deflate" }

local function urlencode(s)
  return (s:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

-- main state: number the threads and collect their counters at the end
local threads, count = {}, 0
function setup(thread)
  thread:set("tid", count)
  count = count + 1
  table.insert(threads, thread)
end

-- thread state
local pool, head, tail, n, cursor = {}, 1, 0, 0, 0
ok, bad, used, size, exhausted = 0, 0, 0, 0, 0
local static, make, judge

local function load(file, oneUse)
  local nthreads = tonumber(os.getenv("BENCH_THREADS") or "1")
  local round, rounds = tonumber(os.getenv("BENCH_ROUND") or "0"), tonumber(os.getenv("BENCH_ROUNDS") or "1")
  local stride, slot = nthreads, tid
  if oneUse then stride, slot = nthreads * rounds, round * nthreads + tid end
  local i = 0
  for line in io.lines(file) do
    if line ~= "" and i % stride == slot then
      tail = tail + 1
      pool[tail] = line
    end
    i = i + 1
  end
  size = tail
end

local function nextReusable()
  cursor = cursor % tail + 1
  return pool[cursor]
end

-- The reusable pools' requests, formatted once at start: formatting each one anew cost wrk 8-16 µs more per request
-- than the bare route's static one, CPU the server then did not get on a 2-core machine.
local function preformat(format)
  for i = 1, tail do pool[i] = format(pool[i]) end
  make = nextReusable
end

local function take() -- a one-use token: nil when the pool is empty
  if head > tail then return nil end
  local token = pool[head]
  pool[head] = nil
  head = head + 1
  used = used + 1
  return token
end

local function give(token)
  tail = tail + 1
  pool[tail] = token
end

-- Plain substring search: the service writes compact JSON, and a Lua pattern with `%s*` scanned a 1.5 KB `/entity`
-- reply at about 8 µs of wrk's CPU per request, which the server then did not get.
local function has(body, text) return body ~= nil and body:find(text, 1, true) ~= nil end
local statOk = '"stat":"ok"'

function init(args)
  local file = os.getenv("BENCH_FILE")
  if mode == "bare" then
    static = wrk.format("GET", "/health/live")
    judge = function(status) return status == 200 end
  elseif mode == "page" then
    -- As a web view asks (WebKit sends gzip, deflate): the page's gzip copy, made once (docs/adr/0070).
    static = wrk.format("GET", page, web_view)
    judge = function(status, body, headers)
      return status == 200 and headers["Content-Encoding"] == "gzip" and body:sub(1, 2) == "\31\139"
    end
  elseif mode == "page_inm" then
    static = wrk.format("GET", page, {
      ["If-None-Match"] = os.getenv("BENCH_ETAG") or '"none"', ["Accept-Encoding"] = web_view["Accept-Encoding"] })
    if os.getenv("BENCH_EXPECT_304") == "1" then
      judge = function(status) return status == 304 end
    else
      judge = function(status, body) return status == 200 and has(body, "<html") end
    end
  elseif mode == "entity" then
    load(file, false)
    preformat(function(token) return wrk.format("POST", "/entity", form, "access_token=" .. token) end)
    judge = function(status, body) return status == 200 and has(body, statOk) and has(body, '"result"') end
  elseif mode == "server_entity" or mode == "server_find" then
    -- A customer's backend (HTTP Basic): a record by uuid, or the one record an address finds.
    load(file, false)
    local headers = { ["Content-Type"] = form["Content-Type"], ["Authorization"] = "Basic " .. os.getenv("BENCH_BASIC") }
    if mode == "server_entity" then
      preformat(function(uuid) return wrk.format("POST", "/entity", headers, "type_name=user&uuid=" .. uuid) end)
      judge = function(status, body) return status == 200 and has(body, statOk) and has(body, '"result"') end
    else
      preformat(function(email)
        return wrk.format("POST", "/entity.find", headers, "type_name=user&filter=" .. urlencode("email = '" .. email .. "'"))
      end)
      judge = function(status, body) return status == 200 and has(body, statOk) and has(body, '"result_count":1') end
    end
  elseif mode == "update" then
    load(file, false)
    local value = urlencode('{"givenName":"Bench","primaryAddress":{"city":"Lyon"}}')
    preformat(function(token)
      return wrk.format("POST", "/entity.update", form, "access_token=" .. token .. "&attribute_name=%2F&value=" .. value)
    end)
    judge = function(status, body) return status == 200 and has(body, statOk) end
  elseif mode == "introspect" then
    load(file, false)
    local headers = { ["Content-Type"] = form["Content-Type"], ["Authorization"] = "Basic " .. os.getenv("BENCH_BASIC") }
    preformat(function(token) return wrk.format("POST", "/oauth/introspect", headers, "token=" .. token) end)
    judge = function(status, body) return status == 200 and has(body, '"active":true') end
  elseif mode == "verify" then
    load(file, false)
    local audience = "&audience=" .. urlencode(os.getenv("BENCH_AUDIENCE") or "")
    preformat(function(token) return wrk.format("POST", "/verify", form, "assertion=" .. token .. audience) end)
    judge = function(status, body) return status == 200 and has(body, '"status":"okay"') end
  elseif mode == "signin" then
    load(file, false) -- "email password" lines: a new account each request, so no account's throttle ever refuses
    local common = "client_id=demo-mobile-app&flow=webViewSignIn&locale=en-US&response_type=token&form=signInForm"
    make = function()
      local email, password = nextReusable():match("^(%S+) (.+)$")
      return wrk.format("POST", "/oauth/auth_native_traditional", form,
        common .. "&signInEmailAddress=" .. urlencode(email) .. "&currentPassword=" .. urlencode(password))
    end
    judge = function(status, body) return status == 200 and has(body, statOk) and has(body, '"access_token"') end
  elseif mode == "refresh" then
    -- Rotation: each refresh token is presented once; the new one each reply returns goes to the back of the queue.
    load(file, true)
    make = function()
      local token = take()
      if token == nil then return nil end
      return wrk.format("POST", "/oauth/token", form,
        "grant_type=refresh_token&client_id=demo-mobile-app&refresh_token=" .. token)
    end
    judge = function(status, body)
      local fresh = body and body:match('"refresh_token"%s*:%s*"([^"]+)"')
      if status == 200 and fresh then give(fresh) return true end
      return false
    end
  elseif mode == "code" then
    -- "code verifier" lines, each code exchanged once (PKCE S256); nothing is re-queued.
    load(file, true)
    make = function()
      local line = take()
      if line == nil then return nil end
      local code, verifier = line:match("^(%S+) (%S+)$")
      return wrk.format("POST", "/oauth/token", form,
        "grant_type=authorization_code&client_id=demo-mobile-app&code=" .. code .. "&code_verifier=" .. verifier)
    end
    judge = function(status, body) return status == 200 and has(body, '"access_token"') and has(body, '"refresh_token"') end
  else
    error("unknown BENCH_MODE " .. mode)
  end
end

-- When a one-use pool runs dry the thread stops (its figure is then a lower bound: done() says exhausted=1) and the
-- requests still in flight are a cheap GET that response() does not count (nor what is in flight at that moment).
local drained = wrk.format("GET", "/health/live")
function request()
  if static then return static end
  local r = make()
  if r == nil then
    if exhausted == 0 then exhausted = 1 wrk.thread:stop() end
    return drained
  end
  return r
end

function response(status, headers, body)
  if exhausted == 1 then return end -- the drained GETs, and the few replies still in flight when the pool ran dry
  if judge(status, body, headers) then ok = ok + 1 else bad = bad + 1 end
end

function done(summary, latency, requests)
  local t = { ok = 0, bad = 0, used = 0, size = 0, exhausted = 0 }
  for _, thread in ipairs(threads) do
    t.ok = t.ok + thread:get("ok")
    t.bad = t.bad + thread:get("bad")
    t.used = t.used + thread:get("used")
    t.size = t.size + thread:get("size")
    t.exhausted = t.exhausted + thread:get("exhausted")
  end
  local e = summary.errors
  io.write(string.format(
    "BENCH rps=%.1f p50_us=%d p99_us=%d requests=%d ok=%d bad=%d non2xx=%d socket_errors=%d timeouts=%d used=%d pool=%d exhausted=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50), latency:percentile(99), summary.requests,
    t.ok, t.bad, e.status, e.connect + e.read + e.write, e.timeout, t.used, t.size, t.exhausted))
end
