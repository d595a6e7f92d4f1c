-- examples/gateway/bench, the many-keys run: every request carries one of 100,000 X-Api-Keys,
-- drawn at random, so both limiters decide on cold and warm keys alike.
math.randomseed(os.time())
request = function()
  return wrk.format(nil, nil, { ["X-Api-Key"] = "key-" .. math.random(1, 100000) })
end
