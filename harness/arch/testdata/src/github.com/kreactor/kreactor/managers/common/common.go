// Package common is shared by both consumers but imports share: group
// packages reach share through it.
package common

import _ "github.com/kreactor/kreactor/managers/share"
