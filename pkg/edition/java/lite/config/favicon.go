package config

import (
	"bytes"
	"encoding/base64"
	"io"
	"os"
	"path/filepath"
	"strings"
)

const (
	pngDataURIPrefix = "data:image/png;base64,"
	pngSignature     = "\x89PNG\r\n\x1a\n"
	// faviconWarnLen is where a favicon starts to crowd the 32767-character
	// limit of the whole status response.
	faviconWarnLen = 24 << 10
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
	var uri string
	if strings.HasPrefix(v, "data:") {
		if !d.checkDataURI(e, v) {
			return
		}
		uri = v
	} else {
		path := v
		if !filepath.IsAbs(path) {
			path = filepath.Join(d.dir, path)
		}
		data, ok := d.faviconFile(e, path)
		if !ok {
			return
		}
		uri = pngDataURIPrefix + base64.StdEncoding.EncodeToString(data)
	}
	if len(uri) > faviconWarnLen {
		d.warnf(n.Line, e.path, "favicon is %d characters; status responses over 32767 characters are rejected by clients", len(uri))
	}
	*dst = uri
}

func (d *decoder) checkDataURI(e entry, v string) bool {
	if !strings.HasPrefix(v, pngDataURIPrefix) {
		d.invalid(e, "want a data URI starting with %q", pngDataURIPrefix)
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(v[len(pngDataURIPrefix):])
	if err != nil {
		d.invalid(e, "favicon data URI: invalid base64: %v", err)
		return false
	}
	if !bytes.HasPrefix(raw, []byte(pngSignature)) {
		d.invalid(e, "favicon data URI does not hold a PNG image")
		return false
	}
	return true
}

// faviconFile reads a PNG favicon file. Only regular files are read, and at
// most maxFaviconFile bytes of them: a path such as /dev/zero or a FIFO must
// not hang the load. The type is checked before opening, because opening a
// FIFO blocks until something writes to it.
func (d *decoder) faviconFile(e entry, path string) ([]byte, bool) {
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
	if !bytes.HasPrefix(data, []byte(pngSignature)) {
		d.invalid(e, "favicon file %s is not a PNG image", truncate(path))
		return nil, false
	}
	return data, true
}
