package wake

import "errors"

// ParseSpec parses a route's `wake` text. TODO.
func ParseSpec(text string, namespace, container string) (Spec, error) {
	return Spec{}, errors.New("wake: TODO")
}
