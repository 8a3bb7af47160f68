package engines

import (
	"fmt"
	"strings"

	"go.minekube.com/gate/pkg/edition/java/lite/config"
)

// CheckRoutes runs Check on the target of every route of the file (cfg's
// routes; discovered ones come later, and a bad one is logged and served
// without waking). Its error is a config.ErrorList with one entry per route
// whose target cannot be built, at the route's line and `wake` key.
func CheckRoutes(cfg *config.Config) error {
	var list config.ErrorList
	for i, r := range cfg.Lite.Routes {
		if r.Wake == nil {
			continue
		}
		if err := Check(*r.Wake); err != nil {
			list = append(list, &config.Error{File: cfg.File, Line: r.Line,
				Path: fmt.Sprintf("config.lite.routes[%d].wake", i), Err: config.ErrInvalid,
				Msg: fmt.Sprintf("route %s: its wake target cannot be built: %v", strings.Join(r.Host, ","), err)})
		}
	}
	if len(list) == 0 {
		return nil
	}
	return list
}
