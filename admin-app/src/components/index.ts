/** The shared components of the admin app (plug-in screens use these; see docs/admin.md). */
export { Layout } from './Layout';
export { Link } from './Link';
export { PageHeader } from './PageHeader';
export { DataTable, type Column, type Sort, type Paging } from './DataTable';
export { TextField, TextArea, SelectField, Checkbox, Fieldset, FormErrors } from './Fields';
export { ConfirmHost, confirmDialog, chooseDialog } from './ConfirmDialog';
export { Toasts, toast } from './Toast';
export { Loading, Empty, ErrorState } from './States';
export { lazyComponent } from './Lazy';
export { useApi } from './useApi';
