package config

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
)

const (
	pngDataURIPrefix = "data:image/png;base64,"
	// maxFaviconURI is the longest favicon data URI a status response can
	// carry: the client refuses responses over 32767 characters, and the
	// rest of the response (MOTD, version, players) needs room too.
	maxFaviconURI = 32767 - 2048
	// faviconSide is the width and height the client shows a favicon at.
	faviconSide = 64
	// maxFaviconFile caps the favicon file read at load: far above anything a
	// client shows, far below what would stall a reload.
	maxFaviconFile = 1 << 20
)

// favicon decodes `favicon:` into a data URI: either a PNG data URI as is, or
// a path (relative to the config file's directory) of a PNG file that is read
// and encoded now, so the file is not needed at run time.
func (d *decoder) favicon(e entry, dst *string) {
	n, ok := d.scalar(e, "a PNG data URI or a path to a PNG file")
	if !ok {
		return
	}
	v := strings.TrimSpace(n.Value)
	var (
		uri  string
		data []byte
		name = "favicon data URI" // what messages call the favicon
	)
	if strings.HasPrefix(v, "data:") {
		raw, ok := d.dataURI(e, v)
		if !ok {
			return
		}
		uri, data = v, raw
	} else {
		path := v
		if !filepath.IsAbs(path) {
			path = filepath.Join(d.dir, path)
		}
		name = "favicon file " + truncate(path)
		raw, ok := d.faviconFile(e, path, name)
		if !ok {
			return
		}
		uri, data = pngDataURIPrefix+base64.StdEncoding.EncodeToString(raw), raw
	}
	if !d.checkPNG(e, data, len(uri), name) {
		return
	}
	*dst = uri
}

// checkPNG refuses what no client can show and warns about what it shows
// badly: the image must be a PNG whose data URI fits in a status response,
// and clients draw it at 64x64.
func (d *decoder) checkPNG(e entry, data []byte, uriLen int, name string) bool {
	img, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		d.invalid(e, "%s is not a PNG image clients can show: %v", name, err)
		return false
	}
	if uriLen > maxFaviconURI {
		d.errorf(e.val.Line, e.path, ErrInvalid, "%s is %d characters as a data URI; a status response has room for at most %d (make the PNG smaller)",
			name, uriLen, maxFaviconURI)
		return false
	}
	if img.Width != faviconSide || img.Height != faviconSide {
		d.warnf(e.val.Line, e.path, "%s is %dx%d; clients show %dx%d, so it will be scaled", name, img.Width, img.Height, faviconSide, faviconSide)
	}
	return true
}

// dataURI decodes a PNG data URI's bytes.
func (d *decoder) dataURI(e entry, v string) ([]byte, bool) {
	if !strings.HasPrefix(v, pngDataURIPrefix) {
		d.invalid(e, "want a data URI starting with %q", pngDataURIPrefix)
		return nil, false
	}
	raw, err := base64.StdEncoding.DecodeString(v[len(pngDataURIPrefix):])
	if err != nil {
		d.invalid(e, "favicon data URI: invalid base64: %v", err)
		return nil, false
	}
	return raw, true
}

// faviconFile reads a PNG favicon file. Only regular files are read, and at
// most maxFaviconFile bytes of them: a path such as /dev/zero or a FIFO must
// not hang the load. The type is checked before opening, because opening a
// FIFO blocks until something writes to it.
func (d *decoder) faviconFile(e entry, path, name string) ([]byte, bool) {
	info, err := os.Stat(path)
	if err != nil {
		d.invalid(e, "favicon file: %v", err)
		return nil, false
	}
	if !info.Mode().IsRegular() {
		d.invalid(e, "favicon file %s is not a regular file", truncate(path))
		return nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		d.invalid(e, "favicon file: %v", err)
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFaviconFile+1))
	if err != nil {
		d.invalid(e, "favicon file: %v", err)
		return nil, false
	}
	if len(data) > maxFaviconFile {
		d.errorf(e.val.Line, e.path, ErrLimit, "favicon file %s is larger than %d KiB", truncate(path), maxFaviconFile>>10)
		return nil, false
	}
	if !d.spendText(len(data), e) {
		return nil, false
	}
	return data, true
}
