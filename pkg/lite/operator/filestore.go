package operator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// fileVersion is the state file's format version.
const fileVersion = 1

// fileState is the state file's content.
type fileState struct {
	Version int     `json:"version"`
	Entries []Entry `json:"entries"`
}

// FileStore keeps the state in one JSON file (a proxy without Kubernetes: the
// file beside its config). Each write replaces the file atomically (a temporary
// file in the same directory, synced, renamed over it), so a crash leaves the
// old state or the new one, never half of either.
type FileStore struct {
	path string
	now  func() time.Time
	mu   sync.Mutex // serialises this process's read-modify-writes
}

// NewFileStore returns a store at path; now is the clock expired bans are
// pruned by on each write (nil: time.Now).
func NewFileStore(path string, now func() time.Time) *FileStore {
	if now == nil {
		now = time.Now
	}
	return &FileStore{path: path, now: now}
}

// Path is the file's path.
func (f *FileStore) Path() string { return f.path }

// Load reads the file; a missing file is the empty state. Entries that fail
// validation are skipped and reported, the rest stand.
func (f *FileStore) Load(context.Context) (State, []error, error) {
	fh, err := os.Open(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return State{}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("operator state file: %w", err)
	}
	defer fh.Close()
	if info, err := fh.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("operator state file %s: not a regular file", f.path)
	}
	data, err := io.ReadAll(io.LimitReader(fh, 2*MaxStateBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read operator state file: %w", err)
	}
	if len(data) > 2*MaxStateBytes {
		return nil, nil, fmt.Errorf("operator state file %s: %w: over %d bytes", f.path, ErrTooLarge, 2*MaxStateBytes)
	}
	var fs fileState
	if err := json.Unmarshal(data, &fs); err != nil {
		return nil, nil, fmt.Errorf("operator state file %s: %w", f.path, err)
	}
	if fs.Version != fileVersion {
		return nil, nil, fmt.Errorf("operator state file %s: version %d, want %d", f.path, fs.Version, fileVersion)
	}
	raw := make(map[string]string, len(fs.Entries))
	for _, e := range fs.Entries {
		b, _ := json.Marshal(e)
		raw[e.Key()] = string(b)
	}
	s, bad := FromData(raw)
	return s, bad, nil
}

// Write applies c to the state on disk and returns the new state. What another
// process wrote meanwhile is kept: the file is read again under the lock and c
// applied to it. Its states are unordered (version 0): this process's writes are the only
// ones it applies.
func (f *FileStore) Write(ctx context.Context, c Change) (State, Version, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cur, _, err := f.Load(ctx)
	if err != nil {
		return nil, 0, err
	}
	next := cur.Pruned(f.now()).Apply(c)
	if err := Check(next); err != nil {
		return nil, 0, err
	}
	if err := writeAtomic(f.path, next); err != nil {
		return nil, 0, err
	}
	return next, 0, nil
}

// Watch implements Store: the file changes only through this process's writes,
// which return the new state, so there is nothing to watch; it waits for ctx.
func (f *FileStore) Watch(ctx context.Context, _ func(State, Version)) error {
	<-ctx.Done()
	return nil
}

// writeAtomic writes s to path through a synced temporary file and a rename.
func writeAtomic(path string, s State) error {
	body, err := json.MarshalIndent(fileState{Version: fileVersion, Entries: s.Sorted()}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode operator state: %w", err)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write operator state: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	_, err = tmp.Write(append(body, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write operator state %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // the rename itself survives a crash
		_ = d.Close()
	}
	return nil
}
