// SPDX-License-Identifier: MIT
/* true - do nothing, successfully. */
int main(void)
{
	return 0;
}
