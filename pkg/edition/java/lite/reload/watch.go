package reload

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watching is closed once Run has set up its file watch and signal handler, so
// that a change made after it is never missed.
func (r *Reloader) Watching() <-chan struct{} { return r.watching }

// Run watches the config file (and SIGHUP when enabled) and reloads until ctx
// ends. Call Load first. Run returns nil when ctx ends, or an error if the
// watch cannot be set up.
func (r *Reloader) Run(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch config: %w", err)
	}
	defer w.Close()
	dirs := map[string]bool{}
	if err := r.watchDirs(w, dirs); err != nil {
		return err
	}
	hup := make(chan os.Signal, 1)
	if r.o.SIGHUP {
		signal.Notify(hup, syscall.SIGHUP)
		defer signal.Stop(hup)
	}
	close(r.watching)
	// The file may have changed between Load and the watch.
	r.Reload(false)

	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	defer debounce.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-hup:
			r.o.Log.Info("SIGHUP: reloading config", "file", r.o.Path)
			r.Reload(true)
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if r.relevant(ev.Name) {
				debounce.Reset(r.o.Debounce)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			r.o.Log.Error(err, "config watch error", "file", r.o.Path)
		case <-debounce.C:
			r.Reload(false)
			// A symlink may now point into another directory.
			if err := r.watchDirs(w, dirs); err != nil {
				r.o.Log.Error(err, "config watch")
			}
		}
	}
}

// watchDirs watches the directory of the path and of every symlink hop on the way
// to the real file. Directories are watched rather than the file: an editor's
// rename-over or a ConfigMap's symlink swap replaces the inode a file watch would
// follow.
func (r *Reloader) watchDirs(w *fsnotify.Watcher, dirs map[string]bool) error {
	for _, p := range r.paths() {
		d := filepath.Dir(p)
		if dirs[d] {
			continue
		}
		if err := w.Add(d); err != nil {
			return fmt.Errorf("watch config directory %s: %w", d, err)
		}
		dirs[d] = true
	}
	return nil
}

// paths returns the config path, each symlink hop it resolves through, and the
// real file, all absolute.
func (r *Reloader) paths() []string {
	p, err := filepath.Abs(r.o.Path)
	if err != nil {
		return []string{r.o.Path}
	}
	out := []string{p}
	for range 16 { // symlink chains are short; a loop must not spin
		target, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p = filepath.Clean(target)
		out = append(out, p)
	}
	if real, err := filepath.EvalSymlinks(r.o.Path); err == nil {
		if abs, err := filepath.Abs(real); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

// relevant reports whether an event can change what the path reads: the file
// itself, a symlink on the way, or the "..data"-style entries of a Kubernetes
// volume, whose swap changes the file behind an unchanged symlink.
func (r *Reloader) relevant(name string) bool {
	if strings.HasPrefix(filepath.Base(name), "..") {
		return true
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return false
	}
	for _, p := range r.paths() {
		if p == abs {
			return true
		}
	}
	return false
}
