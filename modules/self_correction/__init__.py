"""The self-correction stage (`stage`): one repair after an execution error or one revision after a finding, shown
what each error kind needs (`context`)."""
