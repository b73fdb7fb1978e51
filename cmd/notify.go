package cmd

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/strategy"
	"github.com/dylan-gluck/spcstr/state"
)

func newNotifyCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "notify [on|off]",
		Short: "Turn the project's notifications (bell, notify command) on or off",
		Long: `Switches the notify strategy of this project on or off, as the hooks
architecture's /sound toggle does. Off, each notification is still recorded
in decisions.json (reason muted:<status>) but no bell rings and no command
runs. Without an argument, says whether notifications are on. The switch is
.spcstr/notify.json (docs/feedback-and-strategies.md).`,
		Args:         cobra.MaximumNArgs(1),
		ValidArgs:    []string{"on", "off"},
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			humanOutput(cmd, false)
			root, err := projectRoot()
			if err != nil {
				return err
			}
			l := state.Layout{Root: root}
			if fi, err := os.Stat(l.Dir()); err != nil || !fi.IsDir() {
				return fmt.Errorf("no .spcstr/ folder in %s: run spcstr init first", root)
			}
			if len(args) == 1 {
				switch args[0] {
				case "on", "off":
					if err := strategy.SetNotifySwitch(cmd.Context(), l, args[0] == "on", time.Now()); err != nil {
						return err
					}
				default:
					return errors.New(`want "on" or "off"`)
				}
			}
			cfg, err := config.Load(l.ConfigPath())
			if err != nil {
				return fmt.Errorf("%w (spcstr doctor says more)", err)
			}
			msg, err := strategy.DescribeNotify(l, cfg)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), msg)
			return err
		},
	}
}
