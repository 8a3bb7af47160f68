// A real client that follows a Transfer as the vanilla client does: npm's
// minecraft-protocol logs in offline through addr (asking for host in the
// handshake); when the server sends Transfer it hangs up and connects to the
// named host and port with handshake intent 3 (the library itself does not
// follow transfers). One JSON line per step: "transfer" (host, port),
// "reconnected", and an outcome: "joined", "kicked" (reason), "closed" or
// "error". It exits after the outcome.
//
//   node transfer.js <addr-host> <addr-port> <handshake-host> <version> <name>
'use strict'
const mc = require('minecraft-protocol')

const [host, port, fakeHost, version, name] = process.argv.slice(2)
const say = (o) => process.stdout.write(JSON.stringify(o) + '\n')
let finished = false
const finish = (o) => {
  if (finished) return
  finished = true
  say(o)
  process.exit(0)
}
setTimeout(() => finish({ event: 'error', error: 'no outcome within 20s' }), 20000)

function text (reason) {
  try {
    const v = typeof reason === 'string' ? JSON.parse(reason) : reason
    const flat = (c) => (typeof c === 'string' ? c : (c.text || '') + (c.extra || []).map(flat).join(''))
    return flat(v)
  } catch (_) {
    return String(reason)
  }
}

function watch (c, following) {
  c.on('login', () => finish({ event: 'joined' }))
  c.on('disconnect', (p) => finish({ event: 'kicked', reason: text(p.reason) }))
  c.on('kick_disconnect', (p) => finish({ event: 'kicked', reason: text(p.reason) }))
  c.on('error', (err) => { if (following() === false) finish({ event: 'error', error: String(err) }) })
  c.on('end', (why) => { if (following() === false) finish({ event: 'closed', error: String(why || '') }) })
}

let transferred = false
const first = mc.createClient({ host, port: Number(port), fakeHost, username: name, version, auth: 'offline', hideErrors: true })
watch(first, () => transferred)
first.on('transfer', (p) => {
  transferred = true
  say({ event: 'transfer', host: p.host, port: p.port })
  first.end()
  follow(p.host, p.port)
})

function follow (toHost, toPort) {
  const c = mc.createClient({ host: toHost, port: toPort, username: name, version, auth: 'offline', hideErrors: true })
  const write = c.write.bind(c)
  c.write = (packet, params) => write(packet, packet === 'set_protocol' ? { ...params, nextState: 3 } : params)
  c.on('connect', () => say({ event: 'reconnected' }))
  watch(c, () => false)
}
