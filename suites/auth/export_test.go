package auth

// Challenge and the parser, for the external tests.
type Challenge = challenge

var (
	ParseChallenges = func(s string) ([]challenge, error) { return parseChallenges([]string{s}) }
	Bearer          = bearer
)
