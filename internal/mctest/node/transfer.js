// Real clients that follow a Transfer as the vanilla client does: npm's
// minecraft-protocol logs count players in offline through addr (asking for
// host in the handshake); when the server sends Transfer a client hangs up and
// connects to the named host and port with handshake intent 3 (the library
// itself does not follow transfers). One JSON line per step, each naming its
// bot, with ms since that bot first connected: "transfer" (host, port, the
// keep-alives answered before it, and the dialog shown while parked, if any), "reconnected", and an outcome: "joined",
// "kicked" (reason), "closed" or "error". A bot without an outcome within
// limit-ms gets an "error"; the program exits once every bot has an outcome.
// One bot is named name; of several, each is name followed by its number.
//
//   node transfer.js <addr-host> <addr-port> <handshake-host> <version> <name> [count] [limit-ms]
'use strict'
const mc = require('minecraft-protocol')
const text = require('./text')
const nbt = require('prismarine-nbt')

const [host, port, fakeHost, version, name, count = '1', limit = '20000'] = process.argv.slice(2)
const write = (o) => process.stdout.write(JSON.stringify(o) + '\n')
let open = Number(count)
const pending = new Set()

function bot (username) {
  let start = 0
  let finished = false
  let transferred = false
  let kept = 0
  let current = null
  const say = (o) => write({ bot: username, ms: start ? Date.now() - start : 0, ...o })
  const finish = (o) => {
    if (finished) return
    finished = true
    pending.delete(finish)
    say(o)
    if (current) current.end()
    if (--open === 0) process.exit(0)
  }
  pending.add(finish)
  const watch = (c, following) => {
    current = c
    c.on('login', () => finish({ event: 'joined' }))
    c.on('disconnect', (p) => finish({ event: 'kicked', reason: text(p.reason) }))
    c.on('kick_disconnect', (p) => finish({ event: 'kicked', reason: text(p.reason) }))
    c.on('error', (err) => { if (following() === false) finish({ event: 'error', error: String(err) }) })
    c.on('end', (why) => { if (following() === false) finish({ event: 'closed', error: String(why || '') }) })
  }
  const first = mc.createClient({ host, port: Number(port), fakeHost, username, version, auth: 'offline', hideErrors: true })
  first.on('connect', () => { start = Date.now() })
  let dialog
  first.on('keep_alive', () => { kept++ })
  first.on('show_dialog', (p) => { dialog = nbt.simplify(p.dialog) })
  watch(first, () => transferred)
  first.on('transfer', (p) => {
    transferred = true
    say({ event: 'transfer', host: p.host, port: p.port, keepAlives: kept, dialog })
    first.end()
    const c = mc.createClient({ host: p.host, port: p.port, username, version, auth: 'offline', hideErrors: true })
    const send = c.write.bind(c)
    c.write = (packet, params) => send(packet, packet === 'set_protocol' ? { ...params, nextState: 3 } : params)
    c.on('connect', () => say({ event: 'reconnected' }))
    watch(c, () => false)
  })
}

setTimeout(() => {
  for (const finish of [...pending]) finish({ event: 'error', error: 'no outcome within ' + limit + 'ms' })
}, Number(limit))
for (let i = 0; i < Number(count); i++) bot(count === '1' ? name : name + i)
