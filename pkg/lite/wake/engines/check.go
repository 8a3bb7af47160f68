package engines

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// CheckRoutes runs Check on the target of every route and every wake hook of
// the file (cfg's; discovered routes come later, and a bad one is logged and
// served without waking). Its error is a config.ErrorList with one entry per
// target that cannot be built, at the route's or hook's line and `wake` key.
func CheckRoutes(cfg *config.Config) error {
	var list config.ErrorList
	bad := func(line int, path, what string, err error) {
		list = append(list, &config.Error{File: cfg.File, Line: line, Path: path, Err: config.ErrInvalid,
			Msg: fmt.Sprintf("%s: its wake target cannot be built: %v", what, err)})
	}
	for i, r := range cfg.Lite.Routes {
		if r.Wake == nil {
			continue
		}
		if err := Check(*r.Wake); err != nil {
			bad(r.Line, fmt.Sprintf("config.lite.routes[%d].wake", i), "route "+strings.Join(r.Host, ","), err)
		}
	}
	hooks := cfg.Lite.Wake.Hooks
	for _, name := range slices.Sorted(maps.Keys(hooks)) {
		if err := Check(hooks[name].Wake); err != nil {
			bad(hooks[name].Line, "config.lite.wake.hooks."+name+".wake", "hook "+name, err)
		}
	}
	if len(list) == 0 {
		return nil
	}
	return list
}
