// Package cross reaches managers/share through managers/common.
package cross

import _ "github.com/kreactor/kreactor/managers/common" // want `managers/group must not import .*managers/share: .*cross -> .*common -> .*share`
