package refserver

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// The names the official conformance suite's server scenarios request
// (@modelcontextprotocol/conformance: resources-read-text, resources-read-binary,
// resources-templates-read, resources-subscribe, resources-unsubscribe,
// prompts-get-*, completion-complete), so that it can referee the reference server
// too: three resources listed after the three the tools embed or link, one
// template, four prompts listed after the fixed ones, and completions for one of
// their arguments. They follow the same rules as every other resource and prompt.
const (
	uriStaticText    = "test://static-text"
	uriStaticBinary  = "test://static-binary"
	uriWatched       = "test://watched-resource"
	officialTemplate = "test://template/{id}/data"
)

// officialResources are the listed resources the official scenarios read or
// subscribe to.
func officialResources() []fixtureResource {
	png, _ := base64.StdEncoding.DecodeString(media().pngPixelBase64)
	return []fixtureResource{
		{uri: uriStaticText, name: "static-text", title: "Static text", description: "A text resource whose contents never change.", mimeType: "text/plain", text: "Static text of the mcp-conform reference server.\n"},
		{uri: uriStaticBinary, name: "static-binary", title: "Static image", description: "A PNG resource whose contents never change.", mimeType: "image/png", blob: png},
		{uri: uriWatched, name: "watched-resource", title: "Watched resource", description: "A text resource to subscribe to.", mimeType: "text/plain", text: "A resource clients subscribe to.\n"},
	}
}

// officialTemplateDefinition is the template test://template/{id}/data.
func officialTemplateDefinition() map[string]any {
	return map[string]any{"uriTemplate": officialTemplate, "name": "template-data", "title": "Data by id", "description": "JSON data for any id.", "mimeType": "application/json"}
}

// templateData is the resource test://template/{id}/data names for one id: JSON
// that carries the id.
func templateData(uri string) (fixtureResource, bool) {
	id, ok := strings.CutPrefix(uri, "test://template/")
	if ok {
		id, ok = strings.CutSuffix(id, "/data")
	}
	if !ok || id == "" || strings.Contains(id, "/") {
		return fixtureResource{}, false
	}
	text, _ := json.Marshal(map[string]string{"id": id, "data": "Data for id " + id})
	return fixtureResource{uri: uri, name: "template-data-" + id, mimeType: "application/json", text: string(text)}, true
}

// officialPrompts are the prompts the official scenarios get.
var officialPrompts = []fixturePrompt{
	{
		name: "test_simple_prompt", title: "Simple prompt", description: "A prompt without arguments.",
		messages: func(revision.Revision, map[string]string, faultSet) []map[string]any {
			return []map[string]any{promptMessage("user", textBlock("A prompt without arguments, from the mcp-conform reference server."))}
		},
	},
	{
		name: "test_prompt_with_arguments", title: "Prompt with arguments", description: "A prompt that repeats its two arguments.",
		args: []promptArg{{name: "arg1", description: "The first argument", required: true}, {name: "arg2", description: "The second argument", required: true}},
		messages: func(_ revision.Revision, args map[string]string, _ faultSet) []map[string]any {
			return []map[string]any{promptMessage("user", textBlock("arg1 is "+args["arg1"]+", arg2 is "+args["arg2"]+"."))}
		},
	},
	{
		name: "test_prompt_with_embedded_resource", title: "Prompt with an embedded resource", description: "A prompt that embeds the resource it is given.",
		args: []promptArg{{name: "resourceUri", description: "The URI of the resource to embed", required: true}},
		messages: func(_ revision.Revision, args map[string]string, _ faultSet) []map[string]any {
			embedded := block{"type": "resource", "resource": map[string]any{"uri": args["resourceUri"], "mimeType": "text/plain", "text": "Contents embedded for " + args["resourceUri"] + "."}}
			return []map[string]any{promptMessage("user", embedded), promptMessage("user", textBlock("Summarize the resource above."))}
		},
	},
	{
		name: "test_prompt_with_image", title: "Prompt with an image", description: "A prompt holding an image.",
		messages: func(revision.Revision, map[string]string, faultSet) []map[string]any {
			return []map[string]any{promptMessage("user", imageBlock()), promptMessage("user", textBlock("Describe the image above."))}
		},
	},
}

// officialCompletions are the completion candidates of test_prompt_with_arguments.
var officialCompletions = map[string][]string{"arg1": {"test", "testing", "tested"}, "arg2": {"value", "values"}}
