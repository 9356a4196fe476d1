-- The juice-server ORDER, done atomically in Redis (for scripts/bench.sh's Redis columns).
-- KEYS[i] = a fruit, ARGV[i] = how much of it one juice needs.
-- All or nothing: if any fruit is short, change nothing and return 0. Otherwise take every
-- amount, PUBLISH the new levels on channel "stock" as "fruit=left fruit=left" (one message
-- per order, like juice-server's EVENT STOCK), and return 1.
for i = 1, #KEYS do
  local stock = tonumber(redis.call('GET', KEYS[i]) or '0')
  if stock < tonumber(ARGV[i]) then
    return 0
  end
end
local levels = {}
for i = 1, #KEYS do
  local left = redis.call('DECRBY', KEYS[i], ARGV[i])
  levels[#levels + 1] = KEYS[i] .. '=' .. left
end
redis.call('PUBLISH', 'stock', table.concat(levels, ' '))
return 1
