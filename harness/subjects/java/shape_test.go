package java

import "github.com/kreactor/kreactor/harness"

// The adapters keep the harness's black-box consumer surfaces.
var (
	_ harness.Consumer      = (*Consumer)(nil)
	_ harness.ShareConsumer = (*ShareConsumer)(nil)
)
