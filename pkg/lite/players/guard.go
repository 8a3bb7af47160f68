package players

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/go-logr/logr"
)

// debounce lets an editor finish writing a file (truncate, write, rename) before
// it is read again.
const debounce = 100 * time.Millisecond

// Guard holds the access list files a config names, each loaded on first use and
// reloaded when it changes; a file that fails to load keeps the lists it had and is
// logged once per distinct failure. One Guard serves an instance for its life: its
// watch goroutine starts with the first file and ends with Close.
type Guard struct {
	log logr.Logger

	// mu guards files, w and dirs; a login only reads files, under RLock.
	mu    sync.RWMutex
	files map[string]*source
	w     *fsnotify.Watcher
	dirs  map[string]bool
	// loading serialises loads, so a slow read never holds mu.
	loading sync.Mutex
	done    chan struct{}
	wg      sync.WaitGroup
}

// source is one watched file.
type source struct {
	path string
	cur  atomic.Pointer[File]
	// failed is the last load error logged ("" after a good load), so a file that
	// stays broken is logged once; sum is the content last loaded, so a change
	// elsewhere in the directory reloads nothing. Guarded by Guard.loading.
	failed string
	sum    [sha256.Size]byte
}

// unloaded is what a file that never loaded counts as: an allow list that admits
// no one, no deny list.
var unloaded = &File{Global: Lists{Allow: List{n: 1}}}

// NewGuard returns a Guard that logs to log.
func NewGuard(log logr.Logger) *Guard {
	return &Guard{log: log, files: make(map[string]*source), dirs: make(map[string]bool), done: make(chan struct{})}
}

// file returns path's lists, loading and watching the file on first use.
func (g *Guard) file(path string) *File {
	g.mu.RLock()
	src := g.files[path]
	g.mu.RUnlock()
	if src == nil {
		src = g.add(path)
	}
	if f := src.cur.Load(); f != nil {
		return f
	}
	return unloaded
}

// add loads and watches path, once however many logins ask at the same time.
func (g *Guard) add(path string) *source {
	g.mu.Lock()
	defer g.mu.Unlock()
	if src := g.files[path]; src != nil {
		return src
	}
	src := &source{path: path}
	g.load(src)
	g.watch(filepath.Dir(path))
	g.files[path] = src
	return src
}

// load reads src again; on failure it keeps the lists src had.
func (g *Guard) load(src *source) {
	g.loading.Lock()
	defer g.loading.Unlock()
	data, err := readFile(src.path)
	sum := sha256.Sum256(data)
	if err == nil && src.cur.Load() != nil && sum == src.sum {
		return
	}
	var f *File
	if err == nil {
		f, err = ParseFile(data)
	}
	if err != nil {
		if msg := err.Error(); msg != src.failed {
			src.failed = msg
			g.log.Error(err, "player access list not loaded; keeping the lists it had", "file", src.path)
		}
		return
	}
	if src.failed != "" || src.cur.Load() != nil {
		g.log.Info("player access list loaded", "file", src.path, "entries", f.Len())
	}
	src.failed, src.sum = "", sum
	src.cur.Store(f)
}

// LoadFile reads and parses the access list file at path (see File).
func LoadFile(path string) (*File, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return ParseFile(data)
}

// readFile reads a regular file of at most MaxFileSize bytes: a path that names a
// FIFO or a device must not block or flood the reader.
func readFile(path string) ([]byte, error) {
	if info, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("access list: %w", err)
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("access list %s is not a regular file", path)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open access list: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read access list: %w", err)
	}
	return data, nil
}

// watch watches dir (a file's directory, so an editor's rename-over or a
// ConfigMap's symlink swap is seen), starting the watch goroutine on first use.
// Called with g.mu held.
func (g *Guard) watch(dir string) {
	if g.dirs[dir] {
		return
	}
	if g.w == nil {
		w, err := fsnotify.NewWatcher()
		if err != nil {
			g.log.Error(err, "player access lists will not reload when their files change")
			return
		}
		g.w = w
		g.wg.Go(g.run)
	}
	if err := g.w.Add(dir); err != nil {
		g.log.Error(err, "player access list will not reload when it changes", "dir", dir)
		return
	}
	g.dirs[dir] = true
}

// run reloads every file once events stop for debounce, until Close.
func (g *Guard) run() {
	t := time.NewTimer(time.Hour)
	t.Stop()
	defer t.Stop()
	for {
		select {
		case <-g.done:
			return
		case _, ok := <-g.w.Events:
			if !ok {
				return
			}
			t.Reset(debounce)
		case err, ok := <-g.w.Errors:
			if !ok {
				return
			}
			g.log.Error(err, "player access list watch")
		case <-t.C:
			g.mu.RLock()
			srcs := make([]*source, 0, len(g.files))
			for _, src := range g.files {
				srcs = append(srcs, src)
			}
			g.mu.RUnlock()
			for _, src := range srcs {
				g.load(src)
			}
		}
	}
}

// Close stops watching and waits for the watch goroutine.
func (g *Guard) Close() {
	g.mu.Lock()
	select {
	case <-g.done:
	default:
		close(g.done)
	}
	w := g.w
	g.mu.Unlock()
	g.wg.Wait()
	if w != nil {
		_ = w.Close()
	}
}
