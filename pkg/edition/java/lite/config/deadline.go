package config

// checkDeadlines reports deadline settings that cannot do what they say.
func (d *decoder) checkDeadlines(cfg *Config, at quotaKeys) {
	if f := at.firstByteTimeout; f != nil && cfg.Quota.FirstByteTimeout >= cfg.ReadTimeout {
		d.warnf(f.val.Line, f.path, "%s has no effect: readTimeout (%s) ends the whole handshake first",
			cfg.Quota.FirstByteTimeout, cfg.ReadTimeout)
	}
}
