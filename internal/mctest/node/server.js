// A real Minecraft server for tests: npm's minecraft-protocol accepting
// offline-mode players into an empty world and keeping them (keep-alives are
// the library's). One JSON object per line on stdout says what happened, so a
// Go test can wait for "listening" and count joins.
//
//   node server.js <host> <port> <version> [motd] [max-players] [favicon-data-uri]
//
// With NODE_SERVER_HIDE_PLAYERS=1 its status always reports 0 players online,
// as a server behind another proxy or with hidden counts does.
'use strict'
const mc = require('minecraft-protocol')

const [host, port, version, motd = 'node server', max = '20', favicon] = process.argv.slice(2)
const say = (o) => process.stdout.write(JSON.stringify(o) + '\n')

const server = mc.createServer({
  host,
  port: Number(port),
  version,
  motd,
  'max-players': Number(max),
  'online-mode': false,
  favicon: favicon || undefined,
  beforePing: process.env.NODE_SERVER_HIDE_PLAYERS === '1'
    ? (response) => { response.players.online = 0; response.players.sample = []; return response }
    : undefined
})
const data = require('minecraft-data')(server.version)

server.on('listening', () => say({ event: 'listening', port: server.socketServer.address().port }))
server.on('error', (err) => say({ event: 'error', error: String(err) }))
server.on('playerJoin', (client) => {
  say({ event: 'join', username: client.username })
  client.on('end', () => say({ event: 'leave', username: client.username }))
  client.write('login', {
    ...data.loginPacket,
    enforceSecureChat: false,
    entityId: client.id,
    isHardcore: false,
    gameMode: 0,
    previousGameMode: 1,
    hashedSeed: [0, 0],
    maxPlayers: server.maxPlayers,
    viewDistance: 2,
    reducedDebugInfo: false,
    enableRespawnScreen: true,
    isDebug: false,
    isFlat: true
  })
  client.write('position', { x: 0, y: 64, z: 0, yaw: 0, pitch: 0, flags: 0 })
})
process.on('SIGTERM', () => { server.close(); process.exit(0) })
