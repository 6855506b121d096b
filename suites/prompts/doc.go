// Package prompts holds the checks of the PROMPT and COMPL groups: the prompts
// capability, the paged prompts/list, prompts/get and its errors, prompts
// list_changed ({rev}/server/prompts.mdx), and completion/complete for prompt
// arguments and resource template variables
// ({rev}/server/utilities/completion.mdx).
//
// Every check reads the main session's prompts/list walk (walk.go), made once per
// revision. prompts/get is sent for at most the first maxGets listed prompts, each
// required argument filled with a harmless value; the evidence names them.
package prompts
