// Real-client bots for tests: npm's minecraft-protocol client logs in count
// offline-mode players at once through addr, asking for host in the
// handshake, and reports each one's outcome as a JSON line: "joined" once the
// server's join-game packet arrives, "kicked" with the Disconnect's text, or
// "error", with ms counted from the bot's TCP connect (node's own start-up
// is not the proxy's time). Joined bots stay for stay milliseconds, then leave.
//
//   node bots.js <addr-host> <addr-port> <handshake-host> <version> <count> <stay-ms> [name-prefix]
'use strict'
const mc = require('minecraft-protocol')
const text = require('./text')

const [host, port, fakeHost, version, count, stay, prefix = 'bot'] = process.argv.slice(2)
const say = (o) => process.stdout.write(JSON.stringify(o) + '\n')
let open = Number(count)

function done () {
  if (--open === 0) process.exit(0)
}

for (let i = 0; i < Number(count); i++) {
  const name = prefix + i
  let settled = false
  let connected = 0
  const settle = (o) => {
    if (settled) return
    settled = true
    say({ bot: name, ms: connected ? Date.now() - connected : -1, ...o })
    if (o.outcome !== 'joined') done()
  }
  const c = mc.createClient({ host, port: Number(port), fakeHost, username: name, version, auth: 'offline', hideErrors: true, closeTimeout: 60000 })
  c.on('connect', () => { connected = Date.now() })
  c.on('login', () => {
    settle({ outcome: 'joined' })
    setTimeout(() => { c.end(); done() }, Number(stay))
  })
  c.on('disconnect', (p) => settle({ outcome: 'kicked', reason: text(p.reason) }))
  c.on('kick_disconnect', (p) => settle({ outcome: 'kicked', reason: text(p.reason) }))
  c.on('error', (err) => settle({ outcome: 'error', error: String(err) }))
  c.on('end', (why) => settle({ outcome: 'closed', error: String(why || '') }))
}
