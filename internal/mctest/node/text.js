// text flattens a chat component (a JSON string or an object, as
// minecraft-protocol hands a Disconnect's reason over) to its plain text.
'use strict'

module.exports = function text (reason) {
  try {
    const v = typeof reason === 'string' ? JSON.parse(reason) : reason
    const flat = (c) => (typeof c === 'string' ? c : (c.text || '') + (c.extra || []).map(flat).join(''))
    return flat(v)
  } catch (_) {
    return String(reason)
  }
}
